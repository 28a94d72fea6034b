import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { matchesNoneMatch } from './etag.js';
import { cdnTagsOf } from './cdn-tags.js';
import type { VersionOutput } from '../content/documents/collaborators.js';
import { answerOf, canonicalUrl, type Answer, type Encoding, type ResponseCache } from './response-cache.js';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Below this many bytes an answer is sent as is: compressing it would save less than it costs. */
export const minCompressedBytes = 1024;

/** Credentials in the query string: the audience stands for them in a cache key. */
const credentialParams = ['apikey', 'apiKey'];

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The generation keys (`StorageAdapter.generation`) of the data a GET route's answer to a raw
     * URL is built from: set on the routes whose answers `CachedAnswers` may keep.
     */
    answerDependsOn?: (rawUrl: string) => readonly string[];
  }
}

/** Where a request's answer is kept: its cache key, and the generation read before it was built. */
interface Slot {
  readonly key: string;
  readonly generation: string;
}

/** A document version's answer: its ETag carries the version's validator, which `If-Match` checks. */
export function versionAnswer(output: VersionOutput): Answer {
  return answerOf(JSON.stringify(output.document), output.validator);
}

/** The answer of a write that shows a document version, with its ETag: a client may chain writes with it. */
export function sendWritten(reply: FastifyReply, output: VersionOutput | false): FastifyReply {
  if (output === false) return reply.send(false);
  const answer = versionAnswer(output);
  return reply.header('etag', answer.etag).type('application/json; charset=utf-8').send(answer.body);
}

/** The slots of the requests being answered by their handler (`CachedAnswers.register`). */
const slots = new WeakMap<FastifyRequest, Slot>();

export interface CachedAnswersDeps {
  readonly cache: ResponseCache;
  /** The generation of the store's data that answers depend on (`StorageAdapter.generation`). */
  readonly generation: (dependencies: readonly string[]) => Promise<string>;
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
  readonly #generation: (dependencies: readonly string[]) => Promise<string>;
  readonly #maxParams: number;
  readonly #maxTagsLength: number;

  constructor(deps: CachedAnswersDeps) {
    this.#cache = deps.cache;
    this.#generation = deps.generation;
    this.#maxParams = deps.maxParams;
    this.#maxTagsLength = deps.maxTagsLength;
  }

  /**
   * Answers the GET requests of routes that name their `answerDependsOn` from the cache when it
   * holds their answer, before their query is validated or their handler runs: the key is the
   * audience and the raw URL (`canonicalUrl`), so a hit serves exactly what this audience was
   * served for this URL, at the generation the store is at now. Runs after the auth hook: who asks
   * is known, and a refused credential never reaches the cache. A miss leaves the request its
   * slot (key and generation) for `send` to keep the answer the handler builds.
   */
  register(app: FastifyInstance): void {
    app.addHook('onRequest', (request, reply, done) => {
      const dependsOn = request.routeOptions.config.answerDependsOn;
      const key = dependsOn === undefined ? null : this.#keyOf(request);
      if (key === null) return done();
      // Read before the data: a write committing while the answer is built moves the generation,
      // and the answer is then rebuilt on the next request instead of being trusted.
      this.#generation(dependsOn!(request.url)).then((generation) => {
        const answer = this.#cache.get(key, generation);
        if (!answer) {
          slots.set(request, { key, generation });
          return done();
        }
        this.#deliver(request, reply, answer, key).catch((error: unknown) => reply.send(error));
      }, done);
    });
  }

  /**
   * Answers with what `build` returns, and keeps it when the request has a slot (`register`): the
   * next request for the same URL and audience is answered from memory until a write to what the
   * route depends on commits.
   */
  send(request: FastifyRequest, reply: FastifyReply, build: () => Promise<unknown>): Promise<FastifyReply> {
    return this.#send(request, reply, async () => ({ answer: answerOf(JSON.stringify(await build())), docIds: [] }));
  }

  /** As `send`, for an answer that shows one document version: its ETag names that version. */
  sendVersion(request: FastifyRequest, reply: FastifyReply, build: () => Promise<VersionOutput>): Promise<FastifyReply> {
    return this.#send(request, reply, async () => {
      const output = await build();
      const id = output.document._id;
      return { answer: versionAnswer(output), docIds: typeof id === 'string' ? [id.split(':')[0]!] : [] };
    });
  }

  /** As `sendVersion`, for an answer no cache may keep (a shared draft): sent `private, no-store`. */
  async sendPrivate(request: FastifyRequest, reply: FastifyReply, build: () => Promise<VersionOutput>): Promise<FastifyReply> {
    const answer = versionAnswer(await build());
    void reply.header('cache-control', 'private, no-store');
    return this.#deliver(request, reply, answer, undefined);
  }

  async #send(request: FastifyRequest, reply: FastifyReply, build: () => Promise<{ answer: Answer; docIds: readonly string[] }>): Promise<FastifyReply> {
    const slot = slots.get(request);
    const built = await build();
    // Tags only on what anonymous callers are answered: a shared cache stores nothing else, and
    // another audience's answer may name documents hidden from them.
    const dependsOn = request.routeOptions.config.answerDependsOn;
    const cdnTags = request.principal.kind === 'anonymous' && dependsOn ? cdnTagsOf(dependsOn(request.url), built.docIds, this.#maxTagsLength) : null;
    const answer: Answer = { ...built.answer, cdnTags };
    if (slot) this.#cache.set(slot.key, slot.generation, answer);
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
    const url = canonicalUrl(request.url, credentialParams, this.#maxParams);
    if (url === null) return null;
    if (url.omitted === 0 && credentialParams.some((name) => name in (request.query as object))) return null;
    return `${audience}\n${url.text}`;
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
