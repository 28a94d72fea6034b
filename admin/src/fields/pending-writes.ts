/**
 * Fields that write their value into the document lazily (rich text serializes once typing
 * pauses, since serializing grows with the text) register how to write it now. The editor calls
 * `flushPendingWrites` before it reads the form, so a save right after a keystroke keeps it.
 */
const flushes = new Set<() => void>();

/** Registers a field's write; call the answer when the field goes away. */
export function registerPendingWrite(flush: () => void): () => void {
  flushes.add(flush);
  return () => flushes.delete(flush);
}

export function flushPendingWrites(): void {
  for (const flush of flushes) flush();
}
