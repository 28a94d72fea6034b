import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { keys, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { listFiles, makeImage, uploaded, uploadsDir } from '../helpers/media.js';
import { postLarge, rawExchange, rawRequest } from '../helpers/raw-http.js';
import { createSentinels, ok, pieceTypes, snapshot, versionsOf, type Sentinel, type Snapshot } from '../helpers/hostile-sentinels.js';
import { cropBody, uploadRequest, type FileProbes } from '../helpers/hostile-media-arbitraries.js';
import {
  anyBody,
  contentTypes,
  extraHeaders,
  idForms,
  junkId,
  malformedBody,
  nastyString,
  nastyNumber,
  object,
  patchBody,
  queryString,
  toJson,
  type Json,
} from '../helpers/hostile-arbitraries.js';
import {
  admin,
  assertAnswered,
  assertRefused,
  contributor,
  describeRequest,
  editor,
  noWriteCredentials,
  placeholder,
  send,
  withCredential,
  type Credential,
  type HostileRequest,
  type Placeholders,
} from '../helpers/hostile-requests.js';

/**
 * Generated hostile input against every endpoint: no 5xx, every refusal in the one error shape,
 * no write without the right, a refused admin write changes nothing, and at the end the sentinel
 * documents and the uploads folder are exactly as they were (plus the files of uploads this test
 * made succeed). Fixed seed by default; FC_SEED=<n> replays another run.
 *
 * Generators for holes still being fixed elsewhere are switched off by naming them here; remove
 * an entry once its fix has landed:
 * - hugeIndex: PATCH paths with array indexes far past the end (`links.999999999.label`)
 * - hugeArrays: areas of 200,000 widgets, `$push` of 200,000 items
 * - earlyRefusalReset: a request refused before its body is read gets its answer, not a reset connection
 * - archivedAnonymous: anonymous callers and guests never see archived documents
 * - svgNamespace: SVG scripts behind a namespace prefix (`<svg:script>`)
 * - pdfSniff: a `.pdf` whose `%PDF-` header follows an HTML page
 * - loginThrottle: failed logins are throttled with a 429
 */
const knownOpen: readonly KnownHole[] = [];

type KnownHole = 'hugeIndex' | 'hugeArrays' | 'earlyRefusalReset' | 'archivedAnonymous' | 'svgNamespace' | 'pdfSniff' | 'loginThrottle';
const probe = (hole: KnownHole): boolean => !knownOpen.includes(hole);

const seed = Number(process.env.FC_SEED ?? 20261124);
/** `examples` run first on every seed: inputs that once failed. */
const runs = <T>(numRuns: number, examples: T[] = []): fc.Parameters<T> => ({ seed, numRuns, endOnFailure: true, examples });

const uploadLimit = 1024 * 1024;
const unknownTypes = ['nope', '@cms/nope', '@cms', '%40cms%2Fimage', 'article%00', 'ARTICLE', '..%2Farticle'];
const documentActions = ['', '/publish', '/unpublish', '/localize', '/revert-draft-to-published', '/revert-published-to-previous', '/locales'] as const;

describe('generated hostile input against every endpoint', () => {
  let t: TestApp;
  let sentinels: Sentinel[] = [];
  let values: Placeholders;
  /** Documents and attachments this test created on purpose, which may change. */
  const throwawayDocs = new Set<string>();
  const throwawayAttachments = new Set<string>();
  let throwawayAttachment = '';
  let fileProbes: () => FileProbes;
  let before_: Snapshot;

  before(async () => {
    console.log(`hostile-generated: fast-check seed ${seed} (FC_SEED=<n> to replay another)`);
    // A small upload limit, so that uploads over it are cheap to send.
    t = await startTestApp(testConfig(), { CMS_UPLOAD_LIMIT: String(uploadLimit) });
    const png = await makeImage('png', 8, 8);
    fileProbes = () => ({ png, svgNamespace: probe('svgNamespace'), pdfSniff: probe('pdfSniff') });
    ({ sentinels, values } = await createSentinels(t));
    throwawayAttachment = (await uploaded(t, 'throwaway.png', await makeImage('png', 64, 48)))._id;
    throwawayAttachments.add(throwawayAttachment);
    before_ = await snapshot(t, sentinels, throwawayDocs);
  });
  after(() => t.close());

  // ---- generators of requests ------------------------------------------------------------

  const sentinelsOf = (type: string) => sentinels.filter((sentinel) => sentinel.type === type);

  /** A path under `/api/v1/<type>` naming a sentinel (any spelling of its id) or junk. */
  function documentPath(type: string, options: { draftIds: boolean }): fc.Arbitrary<string> {
    const own = sentinelsOf(type).map((sentinel) => idForms(sentinel.cmsDocId, { draft: options.draftIds }));
    const id = own.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.oneof(...own) }, { weight: 1, arbitrary: junkId }) : junkId;
    return id.map((value) => `/api/v1/${type}/${value}`);
  }

  const anyType = fc.oneof({ weight: 4, arbitrary: fc.constantFrom<string>(...pieceTypes) }, { weight: 1, arbitrary: fc.constantFrom(...unknownTypes) });

  const headersFor = (body: boolean) =>
    fc.tuple(extraHeaders, body ? fc.oneof({ weight: 4, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom(...contentTypes) }) : fc.constant(undefined)).map(
      ([headers, contentType]) => (contentType === undefined ? headers : { ...headers, 'content-type': contentType }),
    );

  /** One write request to a piece endpoint: `insert`, or an action on a document path. */
  function pieceWrite(pathOf: (type: string) => fc.Arbitrary<string>, types: fc.Arbitrary<string>, query: fc.Arbitrary<string>): fc.Arbitrary<Omit<HostileRequest, 'headers'> & { headers: Record<string, string> }> {
    const body = fc.oneof(anyBody(placeholder), patchBody(placeholder, { hugeIndex: probe('hugeIndex') }).map(toJson));
    return types.chain((type) =>
      fc.oneof(
        fc.record({ method: fc.constant('POST'), path: fc.constant(`/api/v1/${type}`), query, headers: headersFor(true), payload: body }),
        fc.record({
          method: fc.constantFrom('PUT', 'PATCH', 'DELETE', 'POST'),
          path: fc.tuple(pathOf(type), fc.constantFrom(...documentActions)).map(([path, action]) => path + action),
          query,
          headers: headersFor(true),
          payload: fc.option(body, { nil: undefined }),
        }),
      ),
    );
  }

  /** Query strings for a caller who may write drafts but not published versions: always the published mode. */
  const publishedQuery = queryString.map((query) => ['cmsMode=published', ...query.split('&').filter((pair) => pair !== '' && !/^cmsMode\b/i.test(pair))].join('&'));

  /**
   * Writes that must all be refused: no credential, guest or wrong credentials anywhere; a
   * contributor on published versions, publishing, and the types it may not edit; an editor on users.
   */
  function forbiddenWrite(): fc.Arbitrary<HostileRequest> {
    const anyPath = (type: string) => documentPath(type, { draftIds: true });
    const publishedPath = (type: string) => documentPath(type, { draftIds: false });
    const nobody = fc.tuple(fc.constantFrom(...noWriteCredentials), pieceWrite(anyPath, anyType, queryString));
    const contributorOnTypes = fc.tuple(fc.constant(contributor), pieceWrite(anyPath, fc.constantFrom('@cms/image', '@cms/file', '@cms/user'), queryString));
    const contributorPublished = fc.tuple(fc.constant(contributor), pieceWrite(publishedPath, fc.constantFrom('article', 'note'), publishedQuery)).filter(
      ([, request]) => !/\/(localize|revert-draft-to-published|locales)$/.test(request.path),
    );
    const contributorPublishing = fc.tuple(
      fc.constant(contributor),
      fc.record({
        method: fc.constant('POST'),
        path: fc.tuple(fc.constantFrom('article', 'note').chain((type) => documentPath(type, { draftIds: true })), fc.constantFrom('/publish', '/unpublish', '/revert-published-to-previous')).map(([path, action]) => path + action),
        query: queryString,
        headers: headersFor(true),
        payload: fc.option(anyBody(placeholder), { nil: undefined }),
      }),
    );
    const editorOnUsers = fc.tuple(fc.constant(editor), pieceWrite(anyPath, fc.constant('@cms/user'), queryString));
    return fc
      .oneof({ weight: 4, arbitrary: nobody }, contributorOnTypes, contributorPublished, contributorPublishing, editorOnUsers)
      .map(([who, request]) => withCredential(request, who));
  }

  /** Reads of every kind, by anyone: lists, documents, locales, image sources, files, health, unknown routes. */
  function anyRead(): fc.Arbitrary<{ who: Credential; request: HostileRequest }> {
    const who = fc.constantFrom(admin, contributor, editor, ...noWriteCredentials);
    const path = fc.oneof(
      { weight: 3, arbitrary: anyType.map((type) => `/api/v1/${type}`) },
      { weight: 3, arbitrary: fc.constantFrom<string>(...pieceTypes).chain((type) => documentPath(type, { draftIds: true })) },
      { weight: 1, arbitrary: fc.constantFrom<string>(...pieceTypes).chain((type) => documentPath(type, { draftIds: true })).map((p) => `${p}/locales`) },
      { weight: 1, arbitrary: documentPath('@cms/image', { draftIds: true }).map((p) => `${p}/src`) },
      { weight: 2, arbitrary: uploadPath() },
      { weight: 1, arbitrary: fc.constantFrom('/health', '/', '/api', '/api/v1', '/api/v1/', '/api/v2/article', '/api/v1/@cms/login/whoami', '//api/v1/article', '/api/v1/article/', '/api/v1/article/x/y/z') },
    );
    const request = fc.record({ method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND'), path, query: queryString, headers: headersFor(false) });
    const anyone = fc.tuple(who, request);
    return fc.oneof({ weight: 4, arbitrary: anyone }, { weight: 1, arbitrary: archivedRead() }).map(([w, r]) => ({ who: w, request: withCredential(r, w) }));
  }

  /** Anonymous and guest reads of articles that ask for archived documents in every spelling. */
  function archivedRead(): fc.Arbitrary<[Credential, Omit<HostileRequest, 'headers'> & { headers: Record<string, string> }]> {
    const outsiders = noWriteCredentials.filter((c) => c.label === 'anonymous' || c.label.startsWith('guest'));
    const archived = fc.constantFrom('archived=any', 'archived=null', 'archived=true', 'archived=1', 'archived=ANY', 'archived=%20any', 'archived[]=any', 'archived=any&archived=true');
    return fc.tuple(
      fc.constantFrom(...outsiders),
      fc.record({
        method: fc.constant('GET'),
        path: fc.oneof(fc.constant('/api/v1/article'), documentPath('article', { draftIds: false })),
        query: fc.tuple(archived, fc.constantFrom('', '&cmsMode=published', '&perPage=100', '&_ids[]=@@OTHER@@', '&search=sentinel')).map(([a, b]) => a + b),
        headers: fc.constant({}),
      }),
    );
  }

  /** Paths under /uploads: the sentinel files, traversal attempts, the temporary folder, junk. */
  function uploadPath(): fc.Arbitrary<string> {
    const files = Object.keys(before_.files).filter((file) => file.startsWith('attachments/'));
    return fc.oneof(
      fc.constantFrom(...files).map((file) => `/uploads/${file}`),
      fc.constantFrom(
        '/uploads/', '/uploads/..%2Fcms.sqlite', '/uploads/attachments/..%2F..%2Fcms.sqlite', '/uploads/%2e%2e/%2e%2e/cms.sqlite', '/uploads/.tmp',
        '/uploads/.tmp/x', '/uploads/attachments', '/uploads/attachments/', '/uploads/attachments/%00', '/uploads/attachments/x%00.png',
        '/uploads/attachments/..', '/uploads/cms.sqlite', '/uploads/attachments/%5C..%5Ccms.sqlite', '/uploads//etc/passwd',
      ),
      fc.constantFrom(...files).map((file) => `/uploads/${file}${'.x'.repeat(2)}`),
      junkId.map((id) => `/uploads/attachments/${id}`),
    );
  }

  // ---- the properties ----------------------------------------------------------------------

  it('answers every read, by anyone, below 500 in the one error shape, and shows nobody without access what is hidden', async () => {
    const staff = [admin, contributor, editor];
    const hiddenFrom = (who: Credential) =>
      sentinels.filter((s) => s.readableBy === 'nobody' || (s.readableBy === 'guests' && !who.label.startsWith('guest'))).filter((s) => !s.archived || probe('archivedAnonymous'));
    await fc.assert(
      fc.asyncProperty(anyRead(), async ({ who, request }) => {
        const answer = await send(t, request, values);
        assertAnswered(request, answer);
        assert.ok(!answer.text.startsWith('SQLite format'), describeRequest(request, answer));
        if (staff.includes(who) || answer.status >= 300) return;
        for (const sentinel of hiddenFrom(who)) {
          assert.ok(!answer.text.includes(sentinel.cmsDocId), `${who.label} sees ${sentinel.cmsDocId}: ${describeRequest(request, answer)}`);
        }
      }),
      runs(400, [
        // @fastify/cors answered a bare OPTIONS with a text/plain 400.
        [{ who: noWriteCredentials[0]!, request: withCredential({ method: 'OPTIONS', path: '/api/v1', query: '' }, noWriteCredentials[0]!) }],
      ]),
    );
  });

  it('refuses every write by a caller without the right, whatever the body, query and headers', async () => {
    await fc.assert(
      fc.asyncProperty(forbiddenWrite(), async (request) => assertRefused(request, await send(t, request, values))),
      runs(400, [
        // An id over the router's maxParamLength got Fastify's own 414 body.
        [withCredential({ method: 'PUT', path: `/api/v1/@cms/user/${'a'.repeat(3000)}`, query: '', headers: { 'content-type': 'application/json' }, payload: '{}' }, editor)],
      ]),
    );
  });

  /** A fresh published article with a widget and a link, for admin writes to do their worst to. */
  /** Sends `r` against a fresh throwaway article: answered in the one shape, and a refusal changes none of its versions. */
  async function sendToThrowaway(r: HostileRequest) {
    const ids = await throwaway();
    const before = await versionsOf(t, 'article', ids.SELF);
    const answer = await send(t, r, ids);
    assertAnswered(r, answer);
    const after = await versionsOf(t, 'article', ids.SELF);
    for (const version of Object.values(after)) assert.ok((version as { status: number }).status < 500, describeRequest(r, answer));
    if (answer.status >= 400) assert.deepEqual(after, before, `a refused write changed the document: ${describeRequest(r, answer)}`);
    return answer;
  }

  async function throwaway(): Promise<Placeholders> {
    const created = await ok(t, 'POST', '/api/v1/article', {
      title: 'Throwaway', tags: ['news'], body: { metaType: 'area', items: [{ type: '@cms/rich-text', content: '<p>x</p>' }] }, links: [{ label: 'l', url: '/x' }],
    });
    throwawayDocs.add(created.cmsDocId);
    const junk = 'zzzzzzzzzzzzzzzzzzzzzzzz';
    return { SELF: created.cmsDocId, WIDGET: created.body.items[0]._id, LINK: created.links[0]._id, ATTACHMENT: throwawayAttachment, USER: junk, OTHER: junk, TOKEN: 'junk' };
  }

  /** What an admin write answered; a created document joins the throwaways. */
  function recordCreated(request: HostileRequest, status: number, text: string): void {
    if (status >= 300 || request.method !== 'POST' || !/^\/api\/v1\/[^/]+(\/[^/]+)?$/.test(request.path)) return;
    const created = JSON.parse(text) as { cmsDocId?: string };
    if (created.cmsDocId) throwawayDocs.add(created.cmsDocId);
  }

  it('lets an admin write anything to throwaway documents: below 500, and a refused write changes nothing', async () => {
    const selfPath = fc.oneof(fc.constant('/api/v1/article/@@SELF@@'), fc.constantFrom('en', 'es').chain((l) => fc.constantFrom('draft', 'published').map((m) => `/api/v1/article/@@SELF@@:${l}:${m}`)));
    const request = fc.oneof(
      pieceWrite(() => selfPath, fc.constant('article'), queryString),
      pieceWrite(() => selfPath, fc.constantFrom<string>(...pieceTypes), queryString).filter((r) => !/\/@@SELF@@/.test(r.path)),
    ).map((r) => withCredential(r, admin));
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const answer = await sendToThrowaway(r);
        recordCreated(r, answer.status, answer.text);
      }),
      runs(150, [
        // A slug over 50,000 bytes broke SQLite's LIKE: a 500.
        [withCredential({ method: 'POST', path: '/api/v1/article', query: '', headers: { 'content-type': 'application/json' }, payload: toJson(object({ title: 'y'.repeat(100_000) })) }, admin)],
      ]),
    );
  });

  it('applies or refuses generated PATCH operators and paths on throwaway documents, atomically', async () => {
    const request = fc
      .record({
        method: fc.constant('PATCH'),
        path: fc.constantFrom('/api/v1/article/@@SELF@@', '/api/v1/article/@@SELF@@:en:published'),
        query: fc.constantFrom('', 'cmsMode=published', 'cmsLocale=es'),
        headers: fc.constant({ 'content-type': 'application/json' }),
        payload: patchBody(placeholder, { hugeIndex: probe('hugeIndex') }).map(toJson),
      })
      .map((r) => withCredential(r, admin));
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        await sendToThrowaway(r);
      }),
      runs(150),
    );
  });

  it('refuses huge areas and huge $push lists quickly with a 4xx', { skip: !probe('hugeArrays') }, async () => {
    const widgets = (n: number) => Array.from({ length: n }, () => ({ type: '@cms/rich-text', content: '' }));
    const bodies = fc.oneof(
      fc.constantFrom(100_000, 200_000).map((n) => ({ method: 'POST', path: '/api/v1/article', payload: JSON.stringify({ title: 'Huge', body: { metaType: 'area', items: widgets(n) } }) })),
      fc.constantFrom(100_000, 200_000).map((n) => ({ method: 'PATCH', path: '/api/v1/article/@@SELF@@', payload: JSON.stringify({ $push: { 'body.items': { $each: widgets(n) } } }) })),
      fc.constantFrom(200_000, 500_000).map((n) => ({ method: 'PATCH', path: '/api/v1/article/@@SELF@@', payload: JSON.stringify({ $push: { tags: { $each: Array(n).fill('news') } } }) })),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const ids = await throwaway();
        const before = await versionsOf(t, 'article', ids.SELF);
        const r = withCredential({ ...body, query: '', headers: { 'content-type': 'application/json' } }, admin);
        const started = Date.now();
        const answer = await send(t, r, ids);
        assertAnswered(r, answer);
        recordCreated(r, answer.status, answer.text);
        assert.ok(answer.status >= 400 && answer.status < 500, `expected a 4xx: ${describeRequest(r, answer)}`);
        assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms: ${describeRequest(r, answer)}`);
        assert.deepEqual(await versionsOf(t, 'article', ids.SELF), before);
      }),
      runs(6),
    );
  });

  // ---- uploads and crops -------------------------------------------------------------------

  it('uploads with hostile file names and contents: stored under a safe name, or refused in the one shape', async () => {
    await fc.assert(
      fc.asyncProperty(uploadRequest(fileProbes()), async ({ request: raw, mustRefuse }) => {
        const request = withCredential(raw, admin);
        const answer = await send(t, request, values);
        assertAnswered(request, answer);
        assert.deepEqual(await listFiles(join(uploadsDir(t), '.tmp')), [], `work files left: ${describeRequest(request, answer)}`);
        if (answer.status >= 300) return;
        const attachment = JSON.parse(answer.text) as { _id: string; name: string; extension: string; _url: string };
        throwawayAttachments.add(attachment._id);
        assert.ok(!mustRefuse, `an active or mislabelled file was accepted: ${describeRequest(request, answer)}`);
        assert.match(attachment.name, /^[a-z0-9-]{1,64}$/, describeRequest(request, answer));
        assert.equal(attachment._url, `http://cms.test/uploads/attachments/${attachment._id}-${attachment.name}.${attachment.extension}`);
      }),
      runs(80),
    );
  });

  it('refuses uploads and crops from callers without the right', async () => {
    const crop = fc
      .record({ query: queryString, headers: headersFor(true), payload: fc.oneof(cropBody(), anyBody(placeholder)) })
      .map((r) => ({ ...r, method: 'POST', path: '/api/v1/@cms/attachment/crop' }));
    const request = fc.tuple(fc.constantFrom(...noWriteCredentials), fc.oneof(uploadRequest(fileProbes()).map((u) => u.request), crop)).map(([who, r]) => withCredential(r, who));
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const answer = await send(t, r, values);
        assertRefused(r, answer);
        assert.deepEqual(await listFiles(join(uploadsDir(t), '.tmp')), [], `work files left: ${describeRequest(r, answer)}`);
      }),
      runs(100),
    );
  });

  it('crops throwaway attachments with generated boxes as admin: below 500, in the one shape', async () => {
    const request = fc
      .record({ query: fc.constant(''), headers: headersFor(true), payload: fc.oneof({ weight: 4, arbitrary: cropBody() }, { weight: 1, arbitrary: malformedBody }) })
      .map((r) => withCredential({ ...r, method: 'POST', path: '/api/v1/@cms/attachment/crop' }, admin));
    const ids: Placeholders = { ...values, SELF: 'x', WIDGET: 'x', LINK: 'x', USER: 'x', OTHER: 'x', ATTACHMENT: '' };
    await fc.assert(
      fc.asyncProperty(request, async (r) => assertAnswered(r, await send(t, r, { ...ids, ATTACHMENT: throwawayAttachment }))),
      runs(40),
    );
  });

  // ---- login -------------------------------------------------------------------------------

  it('answers hostile login, logout and whoami requests below 500, in the one shape, and never logs anyone in', async () => {
    const credentials = fc.record({ username: fc.oneof(fc.constant<Json>('sentinel'), nastyString, nastyNumber, fc.constant<Json>(null)), password: fc.oneof(nastyString as fc.Arbitrary<Json>, nastyNumber, fc.constant<Json>(['sentinel-password-123'])) }, { requiredKeys: [] });
    const login = fc.record({
      method: fc.constant('POST'),
      path: fc.constant('/api/v1/@cms/login/login'),
      query: fc.oneof(fc.constant(''), queryString),
      headers: headersFor(true),
      payload: fc.oneof({ weight: 3, arbitrary: credentials.map((c) => toJson(object(c as Record<string, Json>))) }, { weight: 1, arbitrary: anyBody(placeholder) }),
    });
    const other = fc.record({ method: fc.constantFrom('GET', 'POST'), path: fc.constantFrom('/api/v1/@cms/login/logout', '/api/v1/@cms/login/whoami'), query: queryString, headers: headersFor(true), payload: fc.option(anyBody(placeholder), { nil: undefined }) });
    const request = fc.tuple(fc.constantFrom(...noWriteCredentials.filter((c) => !c.label.startsWith('guest bearer'))), fc.oneof(login, other)).map(([who, r]) => withCredential(r, who));
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const answer = await send(t, r, values);
        assertAnswered(r, answer);
        if (r.path.endsWith('/login')) assert.ok(answer.status >= 400, describeRequest(r, answer));
      }),
      runs(60),
    );
  });

  it('throttles failed logins: after three failures in a minute, a 429 with Retry-After, even for the right password', { skip: !probe('loginThrottle') }, async () => {
    const attempt = (password: string) => ({ method: 'POST', path: '/api/v1/@cms/login/login', query: '', headers: { 'content-type': 'application/json' }, payload: toJson(object({ username: 'sentinel', password })) });
    await fc.assert(
      fc.asyncProperty(fc.array(nastyString.filter((p) => p !== '' && p !== 'sentinel-password-123'), { minLength: 3, maxLength: 5 }), async (passwords) => {
        for (const password of passwords) {
          const request = withCredential(attempt(password), noWriteCredentials[0]!);
          assertRefused(request, await send(t, request, values));
        }
        const right = withCredential(attempt('sentinel-password-123'), noWriteCredentials[0]!);
        const answer = await send(t, right, values);
        assertRefused(right, answer);
        assert.equal(answer.status, 429, describeRequest(right, answer));
        assert.match(String(answer.headers['retry-after']), /^\d+$/, describeRequest(right, answer));
      }),
      runs(3),
    );
  });

  // ---- over a real socket -------------------------------------------------------------------

  it('answers raw requests over a socket below 500 in the one shape: parser refusals, unnormalised paths, huge headers', async () => {
    const port = await t.listen();
    await fc.assert(
      fc.asyncProperty(rawRequest(Object.keys(before_.files).filter((file) => file.startsWith('attachments/'))), async (bytes) => {
        const request: HostileRequest = { method: bytes.slice(0, bytes.indexOf(' ')), path: bytes.slice(bytes.indexOf(' ') + 1, 300), query: '', headers: {} };
        const answer = await rawExchange(port, Buffer.from(bytes, 'latin1'));
        assertAnswered(request, answer);
        assert.ok(!answer.text.startsWith('SQLite format'), describeRequest(request, answer));
      }),
      // Node's parser refusals were written in Fastify's own shape.
      runs(60, [['GARBAGE\r\n\r\n'], [`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`]]),
    );
  });

  it('answers a request refused before its body is read, instead of resetting the connection', { skip: !probe('earlyRefusalReset') }, async () => {
    const port = (t.app.server.address() as AddressInfo).port;
    const json = { 'content-type': 'application/json' };
    const filePart = '--x\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n';
    const refusals = fc.constantFrom<{ path: string; headers: Record<string, string>; prefix?: string }>(
      { path: '/api/v1/@cms/attachment/upload', headers: { 'content-type': 'multipart/form-data; boundary=x', authorization: `ApiKey ${keys.contributor}` }, prefix: filePart },
      { path: '/api/v1/@cms/attachment/upload', headers: { 'content-type': 'multipart/form-data; boundary=x', authorization: `ApiKey ${keys.guest}` }, prefix: filePart },
      { path: '/api/v1/article', headers: { ...json, authorization: 'ApiKey wrong-key-0123456789' } },
      { path: '/api/v1/article', headers: json },
      { path: '/api/v1/@cms/user', headers: { ...json, authorization: `ApiKey ${keys.editor}` } },
      { path: '/api/v1/nope', headers: json },
      { path: '/api/v1/article', headers: { 'content-type': 'text/plain', authorization: `ApiKey ${keys.admin}` } },
      { path: '/api/v1/@cms/attachment/upload', headers: { 'content-type': 'multipart/form-data; boundary=x' } },
      { path: '/api/v1/@cms/attachment/upload', headers: { 'content-type': 'application/json', authorization: `ApiKey ${keys.admin}` } },
    );
    const sizes = fc.oneof(fc.integer({ min: 1_000_000, max: 4_000_000 }), fc.constant(17_000_000));
    await fc.assert(
      fc.asyncProperty(refusals, sizes, async ({ path, headers, prefix }, size) => {
        const request: HostileRequest = { method: 'POST', path, query: '', headers, payload: `<${size} bytes>` };
        const answer = await postLarge(port, path, headers, size, prefix);
        assertRefused(request, answer);
      }),
      runs(12),
    );
  });

  // ---- afterwards --------------------------------------------------------------------------

  it('leaves the sentinel documents, the document lists and the uploads folder as they were', async () => {
    const now = await snapshot(t, sentinels, throwawayDocs);
    assert.deepEqual(now.answers, before_.answers);
    assert.deepEqual(now.docIds, before_.docIds);
    for (const [path, hash] of Object.entries(before_.files)) assert.equal(now.files[path], hash, `${path} changed or vanished`);
    const added = Object.keys(now.files).filter((path) => !(path in before_.files));
    const stray = added.filter((path) => ![...throwawayAttachments].some((id) => path.startsWith(`attachments/${id}-`)));
    assert.deepEqual(stray, [], 'files no successful upload or crop of this test wrote');
    assert.equal(now.attachments, before_.attachments + throwawayAttachments.size - 1);
  });
});
