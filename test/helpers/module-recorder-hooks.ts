/** The loader hooks of module-recorder.ts: each resolved URL appended to the file it names. */
import { appendFileSync } from 'node:fs';

let file = '';

export function initialize(data: { readonly file: string }): void {
  file = data.file;
}

type Resolved = { readonly url: string };

export async function resolve(specifier: string, context: unknown, nextResolve: (specifier: string, context: unknown) => Promise<Resolved>): Promise<Resolved> {
  const resolved = await nextResolve(specifier, context);
  // Synchronous: the line is in the file before the module it names runs.
  appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}
