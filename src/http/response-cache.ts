import { createHash } from 'node:crypto';
import type { CdnTags } from './cdn-tags.js';

/** A content coding this server compresses answers with. */
export type Encoding = 'br' | 'gzip';

/** One answer as sent: its JSON bytes, their strong ETag, and compressed copies made on demand. */
export interface Answer {
  readonly body: Buffer;
  /**
   * A strong validator of `body` (identity coding): `"<digest>"`, or `"<version>.<digest>"` for
   * an answer that shows one document version (`etag.ts` reads the version back from If-Match).
   */
  readonly etag: string;
  readonly encoded: Map<Encoding, Promise<Buffer>>;
  /** `Surrogate-Key` and `Cache-Tag` of an answer a shared cache may store (`cdn-tags.ts`); none for others. */
  readonly cdnTags?: CdnTags | null;
}

export function answerOf(json: string, versionValidator: string | null = null): Answer {
  const body = Buffer.from(json, 'utf8');
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  return { body, etag: versionValidator === null ? `"${digest}"` : `"${versionValidator}.${digest}"`, encoded: new Map() };
}

/** What a kept answer was built from (`StorageAdapter.generations`): generation keys and document versions. */
export interface Sources {
  readonly keys: readonly string[];
  readonly versions: readonly string[];
}

/** A kept answer, valid while the generations of its sources are still `token`. */
export interface Kept {
  readonly answer: Answer;
  readonly sources: Sources;
  readonly token: string;
  /** The store's position when the token was last found current: up to there, nothing needs reading. */
  checkedAt: string;
}

interface Entry extends Kept {
  bytes: number;
}

/**
 * The answers of GET routes for audiences whose answers are the same for everyone in them, as
 * bytes, each valid while the generations of what it was built from have not moved. Least recently
 * used answers go first once either bound (entries, bytes with compressed copies) is passed.
 */
export class ResponseCache {
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  // A Map keeps insertion order: re-inserting on use makes its first key the least recently used.
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(bounds: { readonly maxEntries: number; readonly maxBytes: number }) {
    this.#maxEntries = bounds.maxEntries;
    this.#maxBytes = bounds.maxBytes;
  }

  get enabled(): boolean {
    return this.#maxEntries > 0 && this.#maxBytes > 0;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#bytes };
  }

  /** The answer kept under `key`, now the most recently used; its caller checks that it is current. */
  get(key: string): Kept | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  /** Drops the answer kept under `key` (found stale). */
  drop(key: string, kept: Kept): void {
    if (this.#entries.get(key) === kept) this.#remove(key);
  }

  set(key: string, kept: Kept): void {
    this.#remove(key);
    const entry: Entry = { ...kept, bytes: key.length + kept.answer.body.length };
    // One large answer (a page of 100 documents for an admin key) must not push out all the others.
    if (!this.enabled || entry.bytes > this.#maxBytes / 4) return;
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes;
    this.#evict();
  }

  /** Counts a compressed copy of the answer stored under `key` against the bytes bound. */
  grew(key: string, answer: Answer, bytes: number): void {
    const entry = this.#entries.get(key);
    if (entry?.answer !== answer) return;
    entry.bytes += bytes;
    this.#bytes += bytes;
    this.#evict();
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  #evict(): void {
    while (this.#entries.size > this.#maxEntries || (this.#bytes > this.#maxBytes && this.#entries.size > 0)) {
      this.#remove(this.#entries.keys().next().value!);
    }
  }
}

/**
 * A cache key's text of a raw request URL (path and raw query string), or null when its answer is
 * not to be kept (more than `maxParams` parameters): the parameters named in `omit` (credentials: they belong to the audience, and
 * are not to be kept in memory) are left out, and the others put in order of their top-level
 * name, so that `?a=1&b=2` and `?b=2&a=1` share one entry. Nothing is parsed or decoded.
 *
 * Only the order that the parsed query cannot see is changed. The parser (qs) merges the
 * parameters of one top-level name (`sort[x]`, `sort[y]`; `_ids[]` twice) in their order, and
 * that order can matter (sort by x first; an id list), so a stable sort by the text before the
 * first `[` keeps it: names with different such texts are different top-level names. A name
 * that may be encoded (`%`) could be the same name as another spelt otherwise: such a query is
 * kept in its raw order, a distinct entry for each spelling. `omitted` counts the parameters
 * left out (a credential whose name is encoded is not recognised here; the caller refuses to key
 * such a request).
 */
export function canonicalUrl(url: string, omit: readonly string[], maxParams: number): { readonly text: string; readonly omitted: number } | null {
  const mark = url.indexOf('?');
  if (mark === -1) return { text: url, omitted: 0 };
  const params = url.slice(mark + 1).split('&');
  if (params.length > maxParams) return null;
  const kept = params.filter((param) => !omit.includes(nameOf(param)));
  const reorder = kept.length > 1 && kept.every((param) => !nameOf(param).includes('%'));
  const ordered = reorder ? kept.map((param) => [topLevelName(param), param] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : null;
  const query = ordered ? ordered.map(([, param]) => param).join('&') : kept.join('&');
  return { text: `${url.slice(0, mark)}?${query}`, omitted: params.length - kept.length };
}

function nameOf(param: string): string {
  const equals = param.indexOf('=');
  return equals === -1 ? param : param.slice(0, equals);
}

function topLevelName(param: string): string {
  const name = nameOf(param);
  const bracket = name.indexOf('[');
  return bracket === -1 ? name : name.slice(0, bracket);
}
