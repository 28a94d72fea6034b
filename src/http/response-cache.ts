import { createHash } from 'node:crypto';

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
}

export function answerOf(json: string, versionValidator: string | null = null): Answer {
  const body = Buffer.from(json, 'utf8');
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  return { body, etag: versionValidator === null ? `"${digest}"` : `"${versionValidator}.${digest}"`, encoded: new Map() };
}

interface Entry {
  readonly answer: Answer;
  /** The store's generation read before the answer was built: valid while it is still current. */
  readonly generation: string;
  bytes: number;
}

/**
 * The answers of GET routes for audiences whose answers are the same for everyone in them, as
 * bytes, each valid while the store's generation has not moved since it was built. Least recently
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

  /** The answer stored under `key` if it was built at `generation`; a stale one is dropped. */
  get(key: string, generation: string): Answer | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.generation !== generation) {
      this.#bytes -= entry.bytes;
      return undefined;
    }
    this.#entries.set(key, entry);
    return entry.answer;
  }

  set(key: string, generation: string, answer: Answer): void {
    this.#remove(key);
    const entry: Entry = { answer, generation, bytes: key.length + answer.body.length };
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
 * A stable text of a parsed query string: its parameters in key order, so that `?a=1&b=2` and
 * `?b=2&a=1` share one entry. Inside a parameter the order is kept: it can matter (`sort[x]=1&
 * sort[y]=-1` sorts by x first, `_ids[]` lists an order). `omit` names parameters left out
 * (credentials: they belong to the audience, and are not to be kept in memory).
 */
export function canonicalQuery(query: Readonly<Record<string, unknown>>, omit: readonly string[] = []): string {
  const keys = Object.keys(query)
    .filter((key) => !omit.includes(key))
    .sort();
  return JSON.stringify(keys.map((key) => [key, query[key]]));
}
