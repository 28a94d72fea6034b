import { CmsError } from './cms-error.js';
import { queryString, type QueryValue } from './query-string.js';

/** The shapes of one piece type, as `cms types` writes them into `CmsPieceTypes`. */
export interface PieceTypeShapes {
  readonly read: object;
  /** `never` for a type without public API. */
  readonly public: object;
  readonly write: object;
  readonly patch: object;
}

/** What a client reads: every property (API access), or the public projection. */
export type Audience = 'read' | 'public';

export type Mode = 'draft' | 'published';

/** The piece types a client of this audience may read: anonymous callers only those with a public API. */
export type ReadableType<T, A extends Audience> = A extends 'read'
  ? keyof T & string
  : { [K in keyof T]: T[K] extends { public: infer P } ? ([P] extends [never] ? never : K) : never }[keyof T] & string;

/** What a read of a piece type answers for this audience. */
export type ReadShape<T, K extends keyof T, A extends Audience> = T[K] extends PieceTypeShapes ? T[K][A] : never;

type Shape<T, K extends keyof T, S extends keyof PieceTypeShapes> = T[K] extends PieceTypeShapes ? T[K][S] : never;

/** Properties every projected document keeps. */
type AlwaysKept = '_id' | 'type' | 'metaType';

/** A document with only the projected properties (and those always kept). */
export type Projected<D, P extends keyof D> = [P] extends [never] ? D : Pick<D, P | (AlwaysKept & keyof D)>;

type Scalar = string | number | boolean;

/**
 * A filter on a field whose documents hold `V`: one value, any of several, or an inclusive range
 * (an absent bound is open); choices (`select`, `checkboxes`) only their own values, and
 * relationships the related documents' ids (or `'none'`).
 */
export type FieldFilter<V> =
  NonNullable<V> extends readonly (infer E)[]
    ? [E] extends [Scalar]
      ? E | readonly E[]
      : string | readonly string[]
    : NonNullable<V> extends Scalar
      ? NonNullable<V> | readonly NonNullable<V>[] | { readonly min?: NonNullable<V>; readonly max?: NonNullable<V> }
      : string | readonly string[];

export interface VersionOptions {
  /** `cmsLocale`: default the server's default locale (or the locale in a full `_id`). */
  readonly locale?: string;
  /** `cmsMode`: default `published`; `draft` needs API access. */
  readonly mode?: Mode;
}

/** A write to a stored version: refused (`CmsError` 412, `changed`) when that version changed since the client read it. */
/** A draft's scheduled publish or unpublish (`schedule`): pending until it runs, or failed with the reason. */
export interface ScheduledAction {
  readonly at: string;
  readonly by: { readonly _id: string | null; readonly title: string; readonly username: string | null };
  readonly status: 'pending' | 'failed';
  readonly reason?: string;
}

/** What a draft shows of its schedules. */
export interface ScheduledShape {
  readonly scheduledPublish?: ScheduledAction;
  readonly scheduledUnpublish?: ScheduledAction;
}

export interface WriteOptions extends VersionOptions {
  /**
   * The version this write is based on: a document this client answered (a `get`, or an earlier
   * write's answer), or an ETag. Sent as `If-Match`; without it the last write wins.
   */
  readonly ifUnchanged?: object | string;
}

/** A write that a retry may send again safely: with an `Idempotency-Key`, the server runs it once. */
export interface IdempotentOptions {
  /**
   * Sent as `Idempotency-Key`: the same write sent again with it (after a lost answer, a 503)
   * writes nothing and gets the first answer. `true`: a new random key for this call. Per
   * caller, kept by the server for `limits.idempotencyKeyTtl` (a day by default).
   */
  readonly idempotencyKey?: string | true;
  /**
   * With a key: how many times the call is sent again, with the same key, after a 503 (waiting
   * its `Retry-After`, at most 30 s) or a connection that failed. Default 0.
   */
  readonly retries?: number;
}

export interface GetOptions extends VersionOptions {
  /** `true` replaces each area's items by `_rendered` HTML, `inline` adds it to each widget. */
  readonly renderAreas?: boolean | 'inline';
  /** `true`: archived only; `any`: archived or not; default live only. */
  readonly archived?: boolean | 'any';
}

export interface GetOneOptions extends GetOptions {
  /** A shared draft's `cmsShareKey` (`share`): `get` of its full draft `_id` then reads it whoever asks. */
  readonly shareKey?: string;
}

export interface ListQuery<D, P extends keyof D = never> extends GetOptions {
  readonly page?: number;
  /** A previous answer's `nextCursor`: the page after it, stable under writes between pages (not with `page`). */
  readonly cursor?: string;
  readonly perPage?: number;
  /** Full-text search; results come in relevance order unless `sort` is given. */
  readonly search?: string;
  /** Every word matches the beginning of a word of the title or the text fields. */
  readonly autocomplete?: string;
  /** Keys in order of precedence; `'search'` keeps the relevance order. */
  readonly sort?: { readonly [F in keyof D & string]?: 1 | -1 } | 'search';
  /** Filters by field; relationships by the related `cmsDocId`s (or `'none'`). */
  readonly filters?: { readonly [F in keyof D & string]?: FieldFilter<D[F]> };
  /** Keep only these properties (plus `_id`, `type`, `metaType`). */
  readonly project?: readonly P[];
  /** Only these documents (`cmsDocId`s or `_id`s), in this order. */
  readonly ids?: readonly string[];
  /** Adds `choices`: the values the matching documents hold for these fields. */
  readonly choices?: readonly (keyof D & string)[];
  /** Adds `counts`: as `choices`, each with its count. */
  readonly counts?: readonly (keyof D & string)[];
  /** A document missing in the locale shows its first version along the locale's fallback chain, marked `_fallbackLocale`. */
  readonly fallback?: boolean;
}

/** A live preview link of a draft, as `shareLinks` lists it (never its key). */
export interface ShareLink {
  readonly _id: string;
  readonly createdAt: string | null;
  readonly createdBy: { readonly _id: string | null; readonly title: string | null; readonly username: string | null } | null;
  readonly expiresAt: string | null;
}

export interface ListAnswer<R> {
  readonly results: R[];
  readonly pages: number;
  readonly currentPage: number;
  /** The `cursor` of the next page; null on the last. */
  readonly nextCursor: string | null;
  readonly choices?: Readonly<Record<string, readonly { readonly value: unknown; readonly label: string }[]>>;
  readonly counts?: Readonly<Record<string, readonly { readonly value: unknown; readonly label: string; readonly count: number }[]>>;
}

/** An uploaded file as the upload answers it; pass a `cms types` shape as the client's second type argument for the exact one. */
export interface UploadedAttachment {
  readonly _id: string;
  readonly _url?: string;
  readonly _urls?: Readonly<Record<string, string>>;
  readonly name: string;
  readonly extension: string;
  readonly group: string;
  readonly length: number;
  readonly [key: string]: unknown;
}

/** A relationship's crop of an image (whole pixels), as autocrop answers it. */
export interface CropFields {
  readonly top?: number;
  readonly left?: number;
  readonly width?: number;
  readonly height?: number;
  readonly x?: number | null;
  readonly y?: number | null;
}

/** An image of autocrop's answer: the image piece, its crop fields, and `_crop` when one was made. */
export interface AutocroppedImage {
  readonly _id: string;
  /** Always with an aspect ratio; without one, only for images sent with `_fields`. */
  readonly _fields?: CropFields;
  readonly _crop?: { readonly top: number; readonly left: number; readonly width: number; readonly height: number };
  readonly [key: string]: unknown;
}

export interface CmsClientOptions {
  /** The server's address, for example `https://cms.example.com` (paths start at `/api/v1`). */
  readonly baseUrl: string;
  /** Sent as `Authorization: ApiKey <key>`. */
  readonly apiKey?: string;
  /** A token from `POST /api/v1/@cms/login/login`, sent as `Authorization: Bearer <token>`. */
  readonly bearer?: string;
  /** Another `fetch` (a test double, one with retries); default the global one. */
  readonly fetch?: typeof fetch;
  /**
   * What reads answer: `read` (every property) needs credentials with API access; a guest key or a
   * role below the type's `viewRole` sees only the public projection, so say `public` for those.
   */
  readonly audience?: Audience;
}

type Fetch = typeof fetch;

/** A path segment: encoded, but `@` (in `@cms/...`) and `:` (in `_id`s) stay as they are. */
function segment(value: string): string {
  return encodeURIComponent(value).replace(/%40/g, '@').replace(/%3A/gi, ':');
}

function typePath(type: string): string {
  return `/api/v1/${type.split('/').map(segment).join('/')}`;
}

function versionParameters(options: GetOptions = {}): Record<string, QueryValue> {
  return { cmsLocale: options.locale, cmsMode: options.mode, renderAreas: options.renderAreas, archived: options.archived };
}

/** Each `{ field: 1 }` as `field=1`, the object form the server reads for `sort` and `project`. */
function flags(names: readonly string[] | undefined, value: number): Record<string, number> | undefined {
  return names === undefined ? undefined : Object.fromEntries(names.map((name) => [name, value]));
}

function listParameters(query: ListQuery<Record<string, unknown>, string>): Record<string, QueryValue> {
  return {
    ...(query.filters as Record<string, QueryValue> | undefined),
    ...versionParameters(query),
    page: query.page,
    cursor: query.cursor,
    perPage: query.perPage,
    search: query.search,
    autocomplete: query.autocomplete,
    sort: query.sort as QueryValue,
    project: flags(query.project, 1),
    _ids: query.ids,
    choices: query.choices?.join(','),
    counts: query.counts?.join(','),
    fallback: query.fallback === undefined ? undefined : String(query.fallback),
  };
}

/**
 * A typed client of one server's REST interface. `T` is the `CmsPieceTypes` map `cms types`
 * writes, `A` what reads answer; every call throws a `CmsError` when the server refuses it.
 */
export class CmsClient<T extends { [K in keyof T]: PieceTypeShapes }, A extends Audience = Audience, TAttachment = UploadedAttachment> {
  readonly #baseUrl: string;
  readonly #authorization: string | undefined;
  readonly #fetch: Fetch;
  readonly #etags = new WeakMap<object, string>();
  /**
   * The store position after this client's last write (`CMS-Read-After`), sent with every later
   * request: a server with read replicas then serves its reads from one that has that write.
   */
  #readAfter: string | undefined;

  constructor(options: CmsClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    if (options.apiKey !== undefined) this.#authorization = `ApiKey ${options.apiKey}`;
    else if (options.bearer !== undefined) this.#authorization = `Bearer ${options.bearer}`;
    const fetchFunction = options.fetch ?? globalThis.fetch;
    // A bare reference to the browser's fetch must not be called as a method of this object.
    this.#fetch = (input, init) => fetchFunction(input, init);
  }

  /** One page of a type's documents (published, default locale unless the query says otherwise). */
  list<K extends ReadableType<T, A>, P extends keyof ReadShape<T, K, A> = never>(
    type: K,
    query: ListQuery<ReadShape<T, K, A>, P> = {},
  ): Promise<ListAnswer<Projected<ReadShape<T, K, A>, P>>> {
    return this.#request('GET', `${typePath(type)}${queryString(listParameters(query as ListQuery<Record<string, unknown>, string>))}`);
  }

  /** How many documents the query matches (its filters and search; paging is ignored). */
  async count<K extends ReadableType<T, A>>(type: K, query: ListQuery<ReadShape<T, K, A>> = {}): Promise<number> {
    const parameters = { ...listParameters(query as ListQuery<Record<string, unknown>, string>), count: 1 };
    const answer = await this.#request<{ count: number }>('GET', `${typePath(type)}${queryString(parameters)}`);
    return answer.count;
  }

  /** One version by `_id` (`<cmsDocId>:<locale>:<mode>`) or bare `cmsDocId`. */
  get<K extends ReadableType<T, A>>(type: K, id: string, options: GetOneOptions = {}): Promise<ReadShape<T, K, A>> {
    const share = options.shareKey === undefined ? {} : { cmsShareId: id, cmsShareKey: options.shareKey };
    return this.#request('GET', `${typePath(type)}/${segment(id)}${queryString({ ...versionParameters(options), ...share })}`);
  }

  /** Inserts a document: published by default (needs the publish role), a draft only with `mode: 'draft'`. */
  insert<K extends keyof T & string>(type: K, body: Shape<T, K, 'write'>, options: VersionOptions & IdempotentOptions = {}): Promise<Shape<T, K, 'read'>> {
    return this.#keyedRequest('POST', `${typePath(type)}${queryString(versionParameters(options))}`, body, {}, options);
  }

  /** Changes only what the patch names (plain keys, dot paths, `$push` and the other operators). */
  patch<K extends keyof T & string>(type: K, id: string, body: Shape<T, K, 'patch'>, options: WriteOptions & IdempotentOptions = {}): Promise<Shape<T, K, 'read'>> {
    return this.#keyedRequest('PATCH', `${typePath(type)}/${segment(id)}${queryString(versionParameters(options))}`, body, this.#ifMatch(options), options);
  }

  /** Copies the draft into the published version; answers the published version. */
  publish<K extends keyof T & string>(type: K, id: string, options: Pick<WriteOptions, 'locale' | 'ifUnchanged'> & IdempotentOptions = {}): Promise<Shape<T, K, 'read'>> {
    const path = `${typePath(type)}/${segment(id)}/publish${queryString({ cmsLocale: options.locale })}`;
    return this.#keyedRequest('POST', path, undefined, this.#ifMatch(options), options);
  }

  /**
   * Shares the draft by a secret link: answers the draft with its `cmsShareKey`, which `get`
   * with `share` then reads whoever asks. `id` is the draft's full `_id` (`<cmsDocId>:<locale>:draft`).
   */
  share<K extends keyof T & string>(
    type: K,
    id: string,
    options: Pick<WriteOptions, 'ifUnchanged'> & { readonly expiresIn?: number } = {},
  ): Promise<Shape<T, K, 'read'> & { cmsShareKey?: string; cmsShareLinkId?: string; cmsShareExpiresAt?: string }> {
    // With `expiresIn` (seconds): a preview link of its own that expires, revoked by `revokeShareLink`.
    const body = options.expiresIn === undefined ? { share: true } : { share: true, expiresIn: options.expiresIn };
    return this.#request('POST', `${typePath(type)}/${segment(id)}/share`, body, this.#ifMatch(options));
  }

  /** The live preview links of the draft, newest first (the draft's own key last, as `permanent`). */
  shareLinks(type: keyof T & string, id: string): Promise<{ results: ShareLink[] }> {
    return this.#request('GET', `${typePath(type)}/${segment(id)}/share`);
  }

  /** Revokes one preview link of the draft (`permanent`: the draft's own key). */
  revokeShareLink(type: keyof T & string, id: string, linkId: string): Promise<{ revoked: string }> {
    return this.#request('DELETE', `${typePath(type)}/${segment(id)}/share/${segment(linkId)}`);
  }

  /** Stops sharing the draft: its link reads nothing from now on. Answers the draft. */
  unshare<K extends keyof T & string>(type: K, id: string, options: Pick<WriteOptions, 'ifUnchanged'> = {}): Promise<Shape<T, K, 'read'>> {
    return this.#request('POST', `${typePath(type)}/${segment(id)}/share`, { share: false }, this.#ifMatch(options));
  }

  /**
   * Schedules the draft of the id's locale (or `locale`'s) to be published and/or unpublished
   * then (a Date, or an ISO 8601 date-time with a zone); null cancels one, one left out stays.
   * Answers the draft with its `scheduledPublish` and `scheduledUnpublish`.
   */
  schedule<K extends keyof T & string>(
    type: K,
    id: string,
    times: { readonly publishAt?: Date | string | null; readonly unpublishAt?: Date | string | null },
    options: Pick<WriteOptions, 'locale' | 'ifUnchanged'> = {},
  ): Promise<Shape<T, K, 'read'> & ScheduledShape> {
    const body = Object.fromEntries(Object.entries(times).map(([key, at]) => [key, at instanceof Date ? at.toISOString() : at]));
    return this.#request('POST', `${typePath(type)}/${segment(id)}/schedule${queryString({ cmsLocale: options.locale })}`, body, this.#ifMatch(options));
  }

  /** The ETag of a document this client answered: what `ifUnchanged` sends for it. */
  etagOf(document: object): string | undefined {
    return this.#etags.get(document);
  }

  #ifMatch(options: Pick<WriteOptions, 'ifUnchanged'>): Record<string, string> {
    const { ifUnchanged } = options;
    if (ifUnchanged === undefined) return {};
    const etag = typeof ifUnchanged === 'string' ? ifUnchanged : this.#etags.get(ifUnchanged);
    if (etag === undefined) throw new TypeError('ifUnchanged: not a document this client answered, nor an ETag');
    return { 'if-match': etag };
  }

  /**
   * Uploads a file as an attachment, to attach by its `_id` (`attachment: { _id }`). The name
   * (default the `File`'s own) gives the attachment its name and extension.
   */
  upload(file: Blob, name?: string): Promise<TAttachment> {
    const form = new FormData();
    const fileName = name ?? (typeof (file as { name?: unknown }).name === 'string' ? (file as File).name : 'upload');
    form.append('file', file, fileName);
    return this.#request('POST', '/api/v1/@cms/attachment/upload', form);
  }

  /**
   * The centred crop of `aspectRatio` for each image of a relationship value, its files made
   * (`POST /api/v1/@cms/image/autocrop`); without a ratio, the images as sent, their crop fields (if any) laundered.
   */
  autocrop(
    relationship: readonly { readonly _id: string; readonly _fields?: CropFields }[],
    aspectRatio?: readonly [number, number],
    options: VersionOptions = {},
  ): Promise<{ relationship: AutocroppedImage[] }> {
    const body = { relationship, ...(aspectRatio && { widgetOptions: { aspectRatio } }) };
    return this.#request('POST', `/api/v1/@cms/image/autocrop${queryString(versionParameters(options))}`, body);
  }

  /** `#request` with the call's `Idempotency-Key`, sent again with it as `retries` allows. */
  async #keyedRequest<R>(method: string, path: string, body: unknown, headers: Record<string, string>, options: IdempotentOptions): Promise<R> {
    const key = options.idempotencyKey === true ? globalThis.crypto.randomUUID() : options.idempotencyKey;
    if (key === undefined) return this.#request(method, path, body, headers);
    const retries = options.retries ?? 0;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#request<R>(method, path, body, { ...headers, 'idempotency-key': key });
      } catch (error) {
        const delay = retryDelayOf(error);
        if (attempt >= retries || delay === null) throw error;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  async #request<R>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<R> {
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
    if (this.#authorization !== undefined) headers.authorization = this.#authorization;
    if (this.#readAfter !== undefined) headers['cms-read-after'] = this.#readAfter;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const response = await this.#fetch(`${this.#baseUrl}${path}`, { method, headers, body: payload });
    const readAfter = response.headers.get('cms-read-after');
    if (readAfter !== null) this.#readAfter = laterPosition(this.#readAfter, readAfter);
    if (!response.ok) throw await CmsError.fromResponse(response);
    const answer = (await response.json()) as R;
    // The version a document answer shows, for a later write's `ifUnchanged`.
    const etag = response.headers.get('etag');
    if (etag !== null && typeof answer === 'object' && answer !== null) this.#etags.set(answer, etag);
    return answer;
  }
}

/**
 * How long to wait before sending a keyed write again, in ms: a 503's `Retry-After` (the
 * database away, or the outcome of a commit unknown), a second after a failed connection
 * (`fetch` rejects with a TypeError); null for any other failure, which a retry would meet again.
 */
function retryDelayOf(error: unknown): number | null {
  if (error instanceof TypeError) return 1000;
  if (!(error instanceof CmsError) || error.status !== 503) return null;
  const seconds = typeof error.data.retryAfter === 'number' ? error.data.retryAfter : 1;
  return Math.min(Math.max(seconds, 0), 30) * 1000;
}

type Credentials = { readonly apiKey: string } | { readonly bearer: string };

/**
 * A client of the server at `options.baseUrl`, typed by the `CmsPieceTypes` map of `cms types`.
 * With an API key or a bearer token reads answer every property; without (or with
 * `audience: 'public'`) they answer the public projection, and only types with a public API can
 * be read.
 */
export function createCmsClient<T extends { [K in keyof T]: PieceTypeShapes }, TAttachment = UploadedAttachment>(
  options: CmsClientOptions & Credentials & { readonly audience?: 'read' },
): CmsClient<T, 'read', TAttachment>;
export function createCmsClient<T extends { [K in keyof T]: PieceTypeShapes }, TAttachment = UploadedAttachment>(options: CmsClientOptions): CmsClient<T, 'public', TAttachment>;
export function createCmsClient<T extends { [K in keyof T]: PieceTypeShapes }, TAttachment = UploadedAttachment>(options: CmsClientOptions): CmsClient<T, Audience, TAttachment> {
  return new CmsClient<T, Audience, TAttachment>(options);
}

/**
 * The later of two store positions (`16/B374D848`, as the server sends them): answers of writes
 * sent side by side may arrive in any order. (The client imports nothing of the server, whose
 * own reading of a position is in src/core/read-position.ts.)
 */
function laterPosition(known: string | undefined, received: string): string {
  if (known === undefined) return received;
  const parts = (position: string) => position.split('/').map((part) => Number.parseInt(part, 16));
  const [knownHigh = 0, knownLow = 0] = parts(known);
  const [high = 0, low = 0] = parts(received);
  return high > knownHigh || (high === knownHigh && low > knownLow) ? received : known;
}
