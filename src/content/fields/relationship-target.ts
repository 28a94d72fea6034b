/** `withType` defaults to the name without `_` and a trailing `s` (`_topics` -> `topic`). */
export function relationshipTarget(name: string, withType: unknown): string {
  return typeof withType === 'string' ? withType : name.replace(/^_/, '').replace(/s$/, '');
}
