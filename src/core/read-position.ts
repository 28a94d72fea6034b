import { AsyncLocalStorage } from 'node:async_hooks';

/*
 * Read your writes across read replicas: the position in the primary's write-ahead log after a
 * caller's last commit (a PostgreSQL LSN), carried by the caller from one request to the next
 * (the `CMS-Read-After` header, the `cms.read-after` cookie) and held per request here, where the
 * HTTP layer sets it and the store reads and raises it. Here, in the leaf both depend on, so
 * neither imports the other.
 */

/** What one request knows of the positions its reads must see. */
export interface ReadPosition {
  /**
   * Whether the request's reads may go to a replica at all: those of a GET or HEAD, which need no
   * lock. The reads a write makes before its transaction (checks, slugs, relationships) stay on
   * the primary: they decide what is written.
   */
  readonly routable: boolean;
  /** Its reads see at least this position: the caller's, raised by each of the request's commits. */
  after: bigint | undefined;
  /** The position after the request's last commit: sent back (`CMS-Read-After`) when set. */
  wrote: bigint | undefined;
}

const current = new AsyncLocalStorage<ReadPosition>();

/** The position of the running request; undefined outside one (jobs, the CLI): such reads go to the primary. */
export function readPosition(): ReadPosition | undefined {
  return current.getStore();
}

/** Runs `work` (and everything it starts) with `position` as the request's. */
export function withReadPosition<T>(position: ReadPosition, work: () => T): T {
  return current.run(position, work);
}

/** Notes a commit at `lsn` of the running request, if any: its later reads see it, and its caller's. */
export function noteCommitted(lsn: bigint): void {
  const position = current.getStore();
  if (!position) return;
  if (position.after === undefined || lsn > position.after) position.after = lsn;
  if (position.wrote === undefined || lsn > position.wrote) position.wrote = lsn;
}

// `X/Y`, two hexadecimal numbers of at most 32 bits each, as PostgreSQL prints a pg_lsn.
const lsnForm = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** A pg_lsn's text as a number (comparable); undefined when it is not one. */
export function parseLsn(text: string): bigint | undefined {
  const found = lsnForm.exec(text);
  if (!found) return undefined;
  return (BigInt(`0x${found[1]!}`) << 32n) | BigInt(`0x${found[2]!}`);
}

/** A position as PostgreSQL prints it (`16/B374D848`). */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}
