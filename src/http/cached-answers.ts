import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { matchesNoneMatch } from './etag.js';
import { cdnTagsOf } from './cdn-tags.js';
import type { VersionOutput } from '../content/documents/collaborators.js';
import { answerOf, canonicalUrl, type Answer, type Encoding, type ResponseCache, type Sources } from './response-cache.js';
import { mayHaveParameter } from './query-string.js';
import { apiKeyParams } from './plugins/auth.js';
import { memoByUrl } from './memo-by-url.js';
import { shareQueryParams } from '../content/documents/draft-sharing.js';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** The query parameters of a URL whose answer is never kept: a credential, or a shared read's. */
const unkeyedParams: readonly string[] = [...apiKeyParams, ...shareQueryParams];

/** Below this many bytes an answer is sent as is: compressing it would save less than it costs. */
export const minCompressedBytes = 1024;


declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The generation keys (`StorageAdapter.generation`) of the data a GET route's answer to a raw
     * URL is built from: set on the routes whose answers `CachedAnswers` may keep.
     */
    answerDependsOn?: (rawUrl: string) => readonly string[];
    /**
     * The route's answers name what they read (`VersionOutput.sources`: a get-one's documents):
     * a kept answer depends on those alone, and `answerDependsOn` only tags it for a CDN when
     * its own tags (`answerRelatesTo`) do not fit.
     */
    answerNamesSources?: boolean;
    /** The generation keys of what a get-one's document can show besides itself (`AnswerDependencies.relatedOf`): its CDN tags. */
    answerRelatesTo?: (rawUrl: string) => readonly string[];
  }
}

/** What `StorageAdapter.generations` answers: the store's position, and the sources' token (null: not read, at `since`). */
export interface GenerationRead {
  readonly position: string;
  readonly token: string | null;
}

/** Where a request's answer is kept: its cache key, and the store's position and keys read before it was built. */
interface Slot {
  readonly key: string;
  readonly position: string;
  readonly keys: readonly string[];
  readonly token: string;
}

/** A document version's answer: its ETag carries the version's validator, which `If-Match` checks. */
export function versionAnswer(output: VersionOutput): Answer {
  return answerOf(JSON.stringify(output.document), output.validator);
}

/** The answer of a write that shows a document version, with its ETag: a client may chain writes with it. */
export function sendWritten(reply: FastifyReply, output: VersionOutput | false): FastifyReply {
  if (output === false) return reply.send(false);
  const answer = versionAnswer(output);
  // The answer of an earlier request with the same Idempotency-Key: the client learns that nothing was written now.
  if (output.replayed) reply.header('idempotency-replayed', 'true');
  return reply.header('etag', answer.etag).type('application/json; charset=utf-8').send(answer.body);
}

/** The slots of the requests being answered by their handler (`CachedAnswers.register`). */
const slots = new WeakMap<FastifyRequest, Slot>();

export interface CachedAnswersDeps {
  readonly cache: ResponseCache;
  /** The generations of the data answers depend on (`StorageAdapter.generations`). */
  readonly generations: (sources: Sources, options?: { readonly since?: string; readonly positionLast?: boolean }) => Promise<GenerationRead>;
  /** Most query parameters of a kept answer (`limits.responseCacheParams`). */
  readonly maxParams: number;
  /** Longest CDN tag header (`limits.cdnTagsLength`). */
  readonly maxTagsLength: number;
}

/**
 * Sends the JSON answers of GET routes: with a strong ETag (a matching `If-None-Match` is
 * answered 304), `Cache-Control` for a shared or a private answer, compressed as the client
 * accepts when large enough, and kept as bytes in the response cache for callers whose answers
 * are the same for everyone in their audience.
 */
export class CachedAnswers {
  readonly #cache: ResponseCache;
  readonly #generations: CachedAnswersDeps['generations'];
  readonly #maxTagsLength: number;
  /** The raw URL's part of a cache key (`text`); null: its answer is not kept (`#keyOf`). */
  readonly #urlKeyOf: (url: string) => { readonly text: string; readonly omitted: number } | null;

  constructor(deps: CachedAnswersDeps) {
    this.#cache = deps.cache;
    this.#generations = deps.generations;
    this.#maxTagsLength = deps.maxTagsLength;
    const urlKeyOf = (rawUrl: string) => {
      const url = canonicalUrl(rawUrl, apiKeyParams, deps.maxParams);
      // Plain credentials are left out of the text; one spelt otherwise (encoded, `apikey[]`) would
      // stay in it, as would a shared read's key (its answer is never kept anyway).
      return url === null || mayHaveParameter(url.text, unkeyedParams) ? null : url;
    };
    // A URL that held a credential, plain or spelt otherwise, is not remembered: the key stays out of memory.
    this.#urlKeyOf = memoByUrl(urlKeyOf, { remember: (url) => url !== null && url.omitted === 0 });
  }

  /**
   * Answers the GET requests of routes that name their `answerDependsOn` from the cache when it
   * holds their answer, before their query is validated or their handler runs: the key is the
   * audience and the raw URL (`canonicalUrl`), so a hit serves exactly what this audience was
   * served for this URL, while what it was built from has not been written since. Runs after the
   * auth hook: who asks is known, and a refused credential never reaches the cache. A miss leaves
   * the request its slot for `send` to keep the answer the handler builds.
   */
  register(app: FastifyInstance): void {
    app.addHook('onRequest', (request, reply, done) => {
      const { config } = request.routeOptions;
      const key = config.answerDependsOn === undefined ? null : this.#keyOf(request);
      if (key === null) return done();
      const keys = config.answerNamesSources ? [] : config.answerDependsOn!(request.url);
      this.#lookUp(key, keys).then((found) => {
        if ('slot' in found) {
          slots.set(request, found.slot);
          return done();
        }
        this.#deliver(request, reply, found.answer, key).catch((error: unknown) => reply.send(error));
      }, done);
    });
  }

  /**
   * The answer kept under `key` while its sources' generations still hold (nothing read while
   * the store has not moved since they were last found to), or the slot of a miss: the store's
   * position and the generations of `keys`, read before the data, so that a write committing
   * while the answer is built leaves it at older values, and the next request rebuilds it.
   */
  async #lookUp(key: string, keys: readonly string[]): Promise<{ answer: Answer } | { slot: Slot }> {
    const kept = this.#cache.get(key);
    if (kept) {
      const read = await this.#generations(kept.sources, { since: kept.checkedAt });
      if (read.token === null || read.token === kept.token) {
        kept.checkedAt = read.position;
        return { answer: kept.answer };
      }
      this.#cache.drop(key, kept);
    }
    const read = await this.#generations({ keys, versions: [] });
    return { slot: { key, position: read.position, keys, token: read.token! } };
  }

  /**
   * Keeps the answer of a slot. One that names what it read (a get-one) learnt its sources only
   * once built: their generations are read now, with the position after them, and the answer is
   * kept only if that position is still the one read before it was built (nothing committed in
   * between, so the values are those of the data it shows); otherwise the next request builds
   * it again.
   */
  async #keep(slot: Slot, answer: Answer, named: Sources | undefined): Promise<void> {
    if (named === undefined) {
      this.#cache.set(slot.key, { answer, sources: { keys: slot.keys, versions: [] }, token: slot.token, checkedAt: slot.position });
      return;
    }
    const sources: Sources = { keys: [...new Set([...slot.keys, ...named.keys])], versions: named.versions };
    const read = await this.#generations(sources, { positionLast: true });
    if (read.position === slot.position) this.#cache.set(slot.key, { answer, sources, token: read.token!, checkedAt: slot.position });
  }

  /**
   * Answers with what `build` returns, and keeps it when the request has a slot (`register`): the
   * next request for the same URL and audience is answered from memory until a write to what the
   * route depends on commits.
   */
  send(request: FastifyRequest, reply: FastifyReply, build: () => Promise<unknown>): Promise<FastifyReply> {
    return this.#send(request, reply, async () => ({ answer: answerOf(JSON.stringify(await build())) }));
  }

  /** As `send`, for an answer that shows one document version: its ETag names that version. */
  sendVersion(request: FastifyRequest, reply: FastifyReply, build: () => Promise<VersionOutput>): Promise<FastifyReply> {
    return this.#send(request, reply, async () => {
      const output = await build();
      const sources = output.sources && { keys: [...output.sources.keys], versions: [...output.sources.versions] };
      return { answer: versionAnswer(output), sources, shows: String(output.document._id).split(':')[0]! };
    });
  }

  /** As `sendVersion`, for an answer no cache may keep (a shared draft): sent `private, no-store`. */
  async sendPrivate(request: FastifyRequest, reply: FastifyReply, build: () => Promise<VersionOutput>): Promise<FastifyReply> {
    const answer = versionAnswer(await build());
    void reply.header('cache-control', 'private, no-store');
    return this.#deliver(request, reply, answer, undefined);
  }

  async #send(
    request: FastifyRequest,
    reply: FastifyReply,
    build: () => Promise<{ answer: Answer; sources?: Sources | undefined; shows?: string }>,
  ): Promise<FastifyReply> {
    const slot = slots.get(request);
    const built = await build();
    // Tags only on what anonymous callers are answered: a shared cache stores nothing else, and
    // another audience's answer may name documents hidden from them.
    const { answerDependsOn: dependsOn, answerRelatesTo: relatesTo } = request.routeOptions.config;
    const shown = built.shows !== undefined && relatesTo ? { docId: built.shows, relatedKeys: relatesTo(request.url) } : undefined;
    const cdnTags = request.principal.kind === 'anonymous' && dependsOn ? cdnTagsOf(dependsOn(request.url), shown, this.#maxTagsLength) : null;
    const answer: Answer = { ...built.answer, cdnTags };
    // A store that cannot say where it is costs the answer its place in the cache, not the answer.
    if (slot) await this.#keep(slot, answer, built.sources).catch(() => undefined);
    return this.#deliver(request, reply, answer, slot?.key);
  }

  /**
   * The cache key of a GET (or HEAD: the same answer) request: its audience, then its raw URL
   * without credentials. Null when its answer is not kept: another method, an audience whose
   * answers differ by user, a URL `canonicalUrl` does not key, or a credential in the query
   * string that the raw text does not spell plainly (it would be kept in the key).
   */
  #keyOf(request: FastifyRequest): string | null {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !this.#cache.enabled) return null;
    const audience = audienceOf(request);
    if (audience === null) return null;
    const url = this.#urlKeyOf(request.url);
    return url === null ? null : `${audience}\n${url.text}`;
  }

  async #deliver(request: FastifyRequest, reply: FastifyReply, answer: Answer, key: string | undefined): Promise<FastifyReply> {
    const compressible = answer.body.length >= minCompressedBytes;
    const encoding = compressible ? preferredEncoding(request.headers['accept-encoding']) : null;
    // Each coding is another representation, so another strong validator.
    const etag = encoding === null ? answer.etag : `${answer.etag.slice(0, -1)}-${encoding === 'br' ? 'br' : 'gz'}"`;
    void reply.header('etag', etag).header('vary', compressible ? 'Authorization, Cookie, Accept-Encoding' : 'Authorization, Cookie');
    // A public answer may be stored anywhere but revalidated on every use: any write may change it.
    // One that depends on who asks keeps the auth hook's `no-store` (a key may sit in the URL); its
    // client can still send If-None-Match itself.
    // (An anonymous answer that expires a stale session cookie is kept out of shared caches.)
    if (request.principal.kind === 'anonymous' && !reply.hasHeader('cache-control')) {
      const shared = !reply.hasHeader('set-cookie');
      void reply.header('cache-control', shared ? 'no-cache' : 'private, no-cache');
      if (shared && answer.cdnTags) void reply.header('surrogate-key', answer.cdnTags.surrogateKey).header('cache-tag', answer.cdnTags.cacheTag);
    }
    if (matchesNoneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
    void reply.type('application/json; charset=utf-8');
    if (encoding === null) return reply.send(answer.body);
    const bytes = await this.#encoded(answer, encoding, key);
    return reply.header('content-encoding', encoding).send(bytes);
  }

  #encoded(answer: Answer, encoding: Encoding, key: string | undefined): Promise<Buffer> {
    let bytes = answer.encoded.get(encoding);
    if (!bytes) {
      bytes = compress(answer.body, encoding);
      answer.encoded.set(encoding, bytes);
      bytes.then(
        (done) => key !== undefined && this.#cache.grew(key, answer, done.length),
        () => answer.encoded.delete(encoding),
      );
    }
    return bytes;
  }
}

/**
 * Whose answers are alike, as part of a cache key; null when the answer may differ by user
 * (`_edit` flags, drafts one may see): such answers are not cached. An API key's audience is the
 * key itself (a digest of it), not its role: keys are few, and nothing is assumed about them.
 */
function audienceOf(request: FastifyRequest): string | null {
  const { principal } = request;
  if (principal.kind === 'anonymous') return 'anonymous';
  if (principal.kind === 'apiKey' && request.callerId !== null) return request.callerId;
  return null;
}

function compress(body: Buffer, encoding: Encoding): Promise<Buffer> {
  if (encoding === 'gzip') return gzipped(body, { level: 6 });
  return brotli(body, {
    params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT },
  });
}

/** `br` over `gzip` when the client accepts both (q > 0); `*` accepts gzip; null: send as is. */
export function preferredEncoding(header: string | string[] | undefined): Encoding | null {
  if (typeof header !== 'string') return null;
  let gzipOk = false;
  for (const item of header.toLowerCase().split(',')) {
    const [name = '', ...params] = item.split(';').map((part) => part.trim());
    const q = params.find((param) => param.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    if (name === 'br') return 'br';
    if (name === 'gzip' || name === 'x-gzip' || name === '*') gzipOk = true;
  }
  return gzipOk ? 'gzip' : null;
}
