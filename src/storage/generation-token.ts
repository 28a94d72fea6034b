/**
 * The token of some generations (`StorageAdapter.generation`): the keys' values in their order,
 * then, when versions were asked for too, theirs after a `/`. Equal tokens of the same sources
 * mean that none of them was written in between.
 */
export function generationToken(keys: readonly string[], versions: readonly string[]): string {
  return versions.length === 0 ? keys.join(' ') : `${keys.join(' ')}/${versions.join(' ')}`;
}
