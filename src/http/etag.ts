/**
 * True when `If-None-Match` names `etag` (or is `*`). The comparison is weak, as RFC 9110 13.1.2
 * asks for this header: a `W/` prefix on the client's tag is ignored.
 */
export function matchesNoneMatch(header: string | string[] | undefined, etag: string): boolean {
  if (typeof header !== 'string') return false;
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
