import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { StorageAdapter, StoredDocument } from '../../src/storage/storage-adapter.js';
import { createCmsClient } from '../../src/client/index.js';
import { keys, startTestApp, type TestApp, type TestResponse } from '../helpers/test-app.js';

// Test documents are read loosely; the assertions check their shape.
type Doc = { [key: string]: any };
type Loose = { read: Doc; public: Doc; write: Doc; patch: Doc };

/** The scope an API key's records are kept under: its caller id. */
const scopeOf = (key: keyof typeof keys) => `key:${createHash('sha256').update(keys[key]).digest('hex')}`;

/** An app whose store the test reads too: history entries unmerged, so that each save shows. */
async function startKeyedApp(env: Record<string, string> = {}): Promise<{ t: TestApp; storage: () => StorageAdapter }> {
  let storage: StorageAdapter | undefined;
  const t = await startTestApp(undefined, { CMS_LIMIT_HISTORY_MERGE_SECONDS: '0', ...env }, { wrapStorage: (adapter) => (storage = adapter) });
  return { t, storage: () => storage! };
}

function ok(res: TestResponse, what: string): TestResponse {
  assert.equal(res.status, 200, `${what}: ${res.text}`);
  return res;
}

describe('Idempotency-Key: a write sent again with its key is run once and answered as the first time', () => {
  let t: TestApp;
  let storage: () => StorageAdapter;
  before(async () => {
    ({ t, storage } = await startKeyedApp());
  });
  after(() => t.close());

  const post = (key: string | undefined, body: unknown, options: { as?: keyof typeof keys; url?: string } = {}) =>
    t.request('POST', options.url ?? '/api/v1/article', { body, key: options.as ?? 'admin', headers: key === undefined ? {} : { 'idempotency-key': key } });
  const patch = (id: string, key: string, body: unknown) => t.request('PATCH', `/api/v1/article/${id}`, { body, headers: { 'idempotency-key': key } });
  const versionsTitled = async (title: string): Promise<StoredDocument[]> =>
    (await storage().documents.find({ type: 'article' })).filter((doc) => doc.title === title);
  const historyOf = async (draftId: string) => ok(await t.request('GET', `/api/v1/article/${draftId}/history?perPage=100`), 'history').body.results as { action: string }[];

  it('replays an insert: the same status, body and ETag, marked replayed; one document, one history entry', async () => {
    const first = ok(await post('insert-once', { title: 'Inserted Once' }), 'first');
    assert.equal(first.headers['idempotency-replayed'], undefined);
    const again = ok(await post('insert-once', { title: 'Inserted Once' }), 'again');
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.etag, first.headers.etag);
    assert.deepEqual((await versionsTitled('Inserted Once')).map((doc) => doc._id).sort(), [`${first.body.cmsDocId}:en:draft`, first.body._id].sort());
    assert.deepEqual((await historyOf(`${first.body.cmsDocId}:en:draft`)).map((entry) => entry.action), ['insert']);
  });

  it('replays a PATCH: the version saved once, its updatedAt and history as after the first', async () => {
    const created = ok(await post(undefined, { title: 'To Patch' }), 'insert');
    const draftId = `${created.body.cmsDocId}:en:draft`;
    const first = ok(await patch(draftId, 'patch-once', { category: 'once' }), 'first');
    const again = ok(await patch(draftId, 'patch-once', { category: 'once' }), 'again');
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.etag, first.headers.etag);
    const stored = (await storage().documents.find({ type: 'article', ids: [draftId] }))[0]!;
    assert.equal(stored.updatedAt, first.body.updatedAt);
    assert.deepEqual((await historyOf(draftId)).map((entry) => entry.action), ['update', 'insert']);
    // The answer's ETag chains on as any write's: a write based on it goes through.
    const next = await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { category: 'next' }, headers: { 'if-match': String(again.headers.etag) } });
    assert.equal(next.status, 200, next.text);
  });

  it('refuses the same key with another body, path or method (422 unprocessable) and writes nothing', async () => {
    ok(await post('reused', { title: 'Reused Key' }), 'first');
    const otherBody = await post('reused', { title: 'Reused Key, other body' });
    assert.equal(otherBody.status, 422, otherBody.text);
    assert.equal(otherBody.body.name, 'unprocessable');
    assert.match(otherBody.body.message, /Idempotency-Key was sent before with another request/);
    assert.deepEqual(otherBody.body.data, {});
    assert.deepEqual(await versionsTitled('Reused Key, other body'), []);
    const otherQuery = await post('reused', { title: 'Reused Key' }, { url: '/api/v1/article?cmsMode=draft' });
    assert.equal(otherQuery.status, 422);
    const created = ok(await post(undefined, { title: 'Another Target' }), 'insert');
    const otherRoute = await patch(created.body._id, 'reused', { title: 'Reused Key' });
    assert.equal(otherRoute.status, 422);
    assert.equal((await versionsTitled('Reused Key')).length, 2, 'the first insert alone: its draft and published version');
  });

  it('keeps a key to its caller: another API key sending the same key and body runs its own write', async () => {
    const mine = ok(await post('shared-key', { title: 'Per Caller' }), 'admin');
    const theirs = ok(await post('shared-key', { title: 'Per Caller' }, { as: 'editor' }), 'editor');
    assert.equal(theirs.headers['idempotency-replayed'], undefined);
    assert.notEqual(theirs.body._id, mine.body._id);
    assert.equal((await versionsTitled('Per Caller')).length, 4);
    // And each caller's retry replays its own.
    assert.equal((await post('shared-key', { title: 'Per Caller' }, { as: 'editor' })).body._id, theirs.body._id);
  });

  it('runs identical requests sent at once as one write: one document, every answer its version', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => post('at-once', { title: 'At Once' })));
    for (const res of answers) assert.equal(res.status, 200, res.text);
    assert.equal(new Set(answers.map((res) => res.body._id)).size, 1);
    assert.equal(answers.filter((res) => res.headers['idempotency-replayed'] === undefined).length, 1, 'one ran, the others were replayed');
    assert.equal((await versionsTitled('At Once')).length, 2);
  });

  it('answers a write whose answer was lost before it was kept as a GET of its version now, marked replayed', async () => {
    const first = ok(await post('answer-lost', { title: 'Answer Lost' }), 'first');
    // The process stopped between the commit and keeping the answer: the record names the version alone.
    const record = (await storage().idempotencyKeys.find(scopeOf('admin'), 'answer-lost', new Date().toISOString()))!;
    assert.equal(record.resultId, first.body._id, 'the record names the version answered');
    assert.deepEqual(JSON.parse(record.answer!).document, first.body, 'and keeps the answer once presented');
    assert.equal(await storage().idempotencyKeys.keepAnswer(scopeOf('admin'), 'answer-lost', record.fingerprint, null), true);
    ok(await t.request('PATCH', `/api/v1/article/${first.body._id}`, { body: { category: 'since' } }), 'a later change');
    const again = ok(await post('answer-lost', { title: 'Answer Lost' }), 'again');
    assert.equal(again.headers['idempotency-replayed'], 'true');
    const read = ok(await t.request('GET', `/api/v1/article/${first.body._id}`), 'get');
    assert.deepEqual(again.body, read.body);
    assert.equal(again.body.category, 'since');
    assert.equal((await versionsTitled('Answer Lost')).length, 2, 'nothing written again');
  });

  it('keeps no record of a refused write: the same key runs again, with the corrected body', async () => {
    const refused = await post('refused-first', { title: 'Refused', priority: 1000 });
    assert.equal(refused.status, 400, refused.text);
    const fixed = ok(await post('refused-first', { title: 'Refused', priority: 10 }), 'fixed');
    assert.equal(fixed.headers['idempotency-replayed'], undefined);
  });

  it('replays publish and unpublish too', async () => {
    const draft = ok(await post(undefined, { title: 'Keyed Publish' }, { url: '/api/v1/article?cmsMode=draft' }), 'draft');
    const publish = () => t.request('POST', `/api/v1/article/${draft.body._id}/publish`, { headers: { 'idempotency-key': 'publish-once' } });
    const first = ok(await publish(), 'publish');
    const again = ok(await publish(), 'again');
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.deepEqual(again.body, first.body);
    assert.deepEqual((await historyOf(draft.body._id)).map((entry) => entry.action), ['publish', 'insert']);
    const unpublish = () => t.request('POST', `/api/v1/article/${draft.body._id}/unpublish`, { headers: { 'idempotency-key': 'unpublish-once' } });
    ok(await unpublish(), 'unpublish');
    assert.equal(ok(await unpublish(), 'unpublish again').headers['idempotency-replayed'], 'true');
  });

  it('refuses a key that is empty, too long, or not visible ASCII with 400 in the error shape, and writes nothing', async () => {
    for (const bad of ['', 'k'.repeat(256), 'has space', 'tab\there', 'a, b']) {
      const res = await post(bad, { title: 'Bad Key' });
      assert.equal(res.status, 400, `${JSON.stringify(bad)}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
      assert.match(res.body.message, /Idempotency-Key takes one value of 1 to 255 visible ASCII characters/);
      assert.deepEqual(res.body.data, { header: 'Idempotency-Key' });
    }
    assert.deepEqual(await versionsTitled('Bad Key'), []);
    ok(await post('k'.repeat(255), { title: 'Longest Key' }), 'the longest key');
    // GET and DELETE ignore the header, whatever it holds.
    ok(await t.request('GET', '/api/v1/article', { headers: { 'idempotency-key': 'has space' } }), 'get');
  });

  it('lets the typed client send a key and retry after a 503 with it: the first answer, one document', async () => {
    const port = await t.listen();
    const sent: (string | null)[] = [];
    let lose = true;
    // The first answer is lost on the way back, as when the connection broke after the commit.
    const lossyFetch: typeof fetch = async (input, init) => {
      sent.push(new Headers(init?.headers).get('idempotency-key'));
      const response = await fetch(input, init);
      if (!lose) return response;
      lose = false;
      const body = { name: 'unavailable', message: 'The outcome is unknown', data: { retryAfter: 0, outcome: 'unknown' } };
      return new Response(JSON.stringify(body), { status: 503, headers: { 'content-type': 'application/json' } });
    };
    const client = createCmsClient<{ article: Loose }>({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: keys.admin,
      fetch: lossyFetch,
    });
    const doc = await client.insert('article', { title: 'Client Retry' }, { idempotencyKey: true, retries: 2 });
    assert.equal(sent.length, 2);
    assert.match(sent[0]!, /^[0-9a-f-]{36}$/);
    assert.equal(sent[1], sent[0], 'the retry sends the same key');
    assert.equal((await versionsTitled('Client Retry')).length, 2);
    assert.equal(doc.title, 'Client Retry');
    // Without retries the 503 reaches the caller.
    lose = true;
    await assert.rejects(client.insert('article', { title: 'Client No Retry' }, { idempotencyKey: 'no-retry' }), { status: 503 });
  });
});

describe('Idempotency-Key: a record expires after limits.idempotencyKeyTtl', () => {
  let t: TestApp;
  let storage: () => StorageAdapter;
  before(async () => {
    ({ t, storage } = await startKeyedApp({ CMS_LIMIT_IDEMPOTENCY_KEY_TTL: '1' }));
  });
  after(() => t.close());

  it('runs the write again once the key has expired, and prunes the expired record', async () => {
    const send = () => t.request('POST', '/api/v1/article', { body: { title: 'Expiring' }, headers: { 'idempotency-key': 'expiring' } });
    const first = ok(await send(), 'first');
    assert.equal(ok(await send(), 'within the lifetime').headers['idempotency-replayed'], 'true');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const later = ok(await send(), 'after it expired');
    assert.equal(later.headers['idempotency-replayed'], undefined);
    assert.notEqual(later.body._id, first.body._id);
    const stored = (await storage().documents.find({ type: 'article' })).filter((doc) => doc.title === 'Expiring');
    assert.equal(stored.length, 4);
    // Another keyed write prunes what expired; the live record stays.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    ok(await t.request('POST', '/api/v1/article', { body: { title: 'Pruner' }, headers: { 'idempotency-key': 'pruner' } }), 'pruner');
    const now = new Date(0).toISOString();
    assert.equal(await storage().idempotencyKeys.find(scopeOf('admin'), 'expiring', now), null, 'pruned, not merely expired');
    assert.notEqual(await storage().idempotencyKeys.find(scopeOf('admin'), 'pruner', now), null);
  });
});
