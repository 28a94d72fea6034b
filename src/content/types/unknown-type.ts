import { NotFoundError } from '../../errors/app-error.js';

// The name is the client's text: shown short, so the known types still fit in the message.
const shownNameLength = 60;

/** The 404 of a piece type no route serves (a mistyped name): it names the types the caller may read. */
export function unknownPieceType(name: string, knownTypes: readonly string[]): NotFoundError {
  const shown = name.length > shownNameLength ? `${name.slice(0, shownNameLength)}…` : name;
  return new NotFoundError(`There is no piece type "${shown}"; the known types are: ${knownTypes.join(', ') || 'none'}`, { knownTypes });
}
