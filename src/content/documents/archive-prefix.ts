/** What an archived version's names start with (facts 4.3): its document's own, so no other document's can. */
export function archivedPrefix(docId: string): string {
  return `deduplicate-${docId}-`;
}

/** A name as the live document holds it: without its document's archive prefix. */
export function liveName(name: string, docId: string): string {
  const prefix = archivedPrefix(docId);
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** A name as the archived document holds it; an empty name stays empty. */
export function archivedName(name: string, docId: string): string {
  return name === '' ? name : archivedPrefix(docId) + liveName(name, docId);
}
