import { InvalidRequestError } from '../errors/app-error.js';

/** A named set of accepted extensions; `image` groups hold pictures. */
export interface FileGroup {
  readonly name: string;
  readonly extensions: readonly string[];
  readonly image: boolean;
}

/** The original's default groups (`fileGroups` of its attachment module). */
export const fileGroups: readonly FileGroup[] = [
  { name: 'images', extensions: ['gif', 'jpg', 'png', 'svg', 'webp'], image: true },
  {
    name: 'office',
    extensions: ['txt', 'rtf', 'pdf', 'xls', 'ppt', 'doc', 'pptx', 'sldx', 'ppsx', 'potx', 'xlsx', 'xltx', 'csv', 'docx', 'dotx'],
    image: false,
  },
];

/** Spellings that name the same format as an accepted extension. */
const extensionMap: Readonly<Record<string, string>> = { jpeg: 'jpg' };

/** Images sharp sizes and crops; SVG is an image that is served as uploaded. */
export const sizedImageExtensions: ReadonlySet<string> = new Set(['gif', 'jpg', 'png', 'webp']);

export function allowedExtensions(): string[] {
  return fileGroups.flatMap((group) => group.extensions);
}

/**
 * The accepted extension of a file (lower-cased, `jpeg` → `jpg`) and its group; refuses any
 * other with the original's message.
 */
export function classifyExtension(rawExtension: string): { extension: string; group: FileGroup } {
  const lowered = rawExtension.toLowerCase();
  const extension = extensionMap[lowered] ?? lowered;
  const group = fileGroups.find((candidate) => candidate.extensions.includes(extension));
  if (!group) {
    const shown = rawExtension === '' ? '(none)' : rawExtension;
    throw new InvalidRequestError(`File type ${shown} was not accepted. Allowed extensions: ${allowedExtensions().join(', ')}`, {
      extension: rawExtension,
    });
  }
  return { extension, group };
}
