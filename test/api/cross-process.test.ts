import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendRequest, startServerProcess, type ProcessResponse, type ServerProcess } from '../helpers/server-process.js';
import { openEventStream } from '../helpers/event-stream.js';
import { describeOnPostgres, newSchemaDatabase, type SchemaDatabase } from '../helpers/postgres.js';

/*
 * Two plain server processes (no CMS_WORKERS), each on a port of its own, on one store: nothing
 * one of them keeps in memory may make it answer otherwise than the other would. Every check
 * writes through one process and reads through the other at once, with no pause in between.
 */

const adminKey = 'cross-process-admin-key-0123';
const admin = { authorization: `ApiKey ${adminKey}` };

const config = {
  baseUrl: 'http://127.0.0.1',
  locales: { en: { label: 'English' }, es: { label: 'Español' } },
  apiKeys: { [adminKey]: { role: 'admin' } },
  // whoami answers the role only when asked to, as the original's does.
  login: { whoamiFields: ['role'] },
  modules: {
    article: {
      extend: '@cms/piece-type',
      // A page, so its drafts may be shared.
      options: { label: 'Article', publicApiProjection: { title: 1, slug: 1, hits: 1 }, pagePath: '/articles' },
      fields: {
        add: {
          hits: { type: 'integer' },
          entries: { type: 'array', fields: { add: { label: { type: 'string' } } } },
        },
      },
    },
  },
};

/** How many `$inc` and `$push` each process sends, and how many of them run at once per process. */
const writesPerProcess = 200;
const batchSize = 20;

interface Pair {
  readonly a: ServerProcess;
  readonly b: ServerProcess;
}

type Headers = Record<string, string>;

function call(server: ServerProcess, method: string, path: string, options: { body?: unknown; headers?: Headers } = {}): Promise<Omit<ProcessResponse, 'pid'>> {
  return sendRequest(server.port, method, path, options.body, options.headers ?? {});
}

async function ok(server: ServerProcess, method: string, path: string, options: { body?: unknown; headers?: Headers } = {}): Promise<any> {
  const res = await call(server, method, path, options);
  assert.equal(res.status, 200, `${method} ${path} on port ${server.port}: ${res.text}`);
  return res.body;
}

/** Starts both processes with `env`, once a directory holds the configuration file they read. */
async function startPair(env: Record<string, string>): Promise<Pair & { stop: () => Promise<void> }> {
  const configDir = await mkdtemp(join(tmpdir(), 'cms-cross-config-'));
  const configPath = join(configDir, 'cms.config.json');
  await writeFile(configPath, JSON.stringify(config));
  const shared = { CMS_CONFIG: configPath, ...env };
  // One after the other: the first migrates the store, the second finds it migrated.
  const a = await startServerProcess({ env: shared });
  const b = await startServerProcess({ env: shared }).catch(async (error: unknown) => {
    await a.stop('SIGKILL');
    throw error;
  });
  await Promise.all([waitForHealth(a), waitForHealth(b)]);
  return {
    a,
    b,
    async stop() {
      await Promise.all([a.stop(), b.stop()]);
      await rm(configDir, { recursive: true, force: true });
    },
  };
}

async function waitForHealth(server: ServerProcess): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await call(server, 'GET', '/health')).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`port ${server.port} never became healthy:\n${server.output()}`);
}

async function createUser(server: ServerProcess, username: string, role: string): Promise<{ id: string; password: string }> {
  const password = `${username}-password-1`;
  const user = await ok(server, 'POST', '/api/v1/@cms/user', { headers: admin, body: { title: username, username, password, role } });
  return { id: user._id, password };
}

async function bearerOf(server: ServerProcess, username: string, password: string): Promise<Headers> {
  const { token } = await ok(server, 'POST', '/api/v1/@cms/login/login', { body: { username, password } });
  return { authorization: `Bearer ${token}` };
}

/** The scenarios, run against the pair `pair()` gives once its `before` has run. */
function crossProcessScenarios(pair: () => Pair): void {
  it('reads a write made on one process at once on the other, answers it had cached before included', async () => {
    const { a, b } = pair();
    const created = await ok(a, 'POST', '/api/v1/article', { headers: admin, body: { title: 'Round 0' } });
    const one = `/api/v1/article/${encodeURIComponent(created._id)}`;
    const list = '/api/v1/article?sort[title]=1&perPage=100';
    for (let round = 1; round <= 20; round++) {
      const [writer, reader] = round % 2 === 0 ? [a, b] : [b, a];
      // Asked twice before the write: the second answer comes from the reader's response cache.
      const cachedOne = await call(reader, 'GET', one, { headers: admin });
      const cachedList = await call(reader, 'GET', list);
      assert.equal((await call(reader, 'GET', one, { headers: admin })).headers.etag, cachedOne.headers.etag);
      assert.equal((await call(reader, 'GET', list)).headers.etag, cachedList.headers.etag);
      assert.equal(cachedOne.body.title, `Round ${round - 1}`);

      await ok(writer, 'PATCH', one, { headers: admin, body: { title: `Round ${round}` } });
      const afterOne = await ok(reader, 'GET', one, { headers: admin });
      assert.equal(afterOne.title, `Round ${round}`, `round ${round}: the keyed read on the other process`);
      const afterList = await ok(reader, 'GET', list);
      assert.ok(
        afterList.results.some((doc: { _id: string; title: string }) => doc._id === created._id && doc.title === `Round ${round}`),
        `round ${round}: the anonymous list on the other process`,
      );
    }

    // A new document moves the other process's list and its count at once.
    const before = await ok(b, 'GET', list);
    await ok(a, 'POST', '/api/v1/article', { headers: admin, body: { title: 'Another one' } });
    const afterInsert = await ok(b, 'GET', list);
    assert.equal(afterInsert.results.length, before.results.length + 1);
    assert.ok(afterInsert.results.some((doc: { title: string }) => doc.title === 'Another one'));
    // And a deletion: the other process answers 404 for it at once.
    await ok(b, 'DELETE', one, { headers: admin });
    assert.equal((await call(a, 'GET', one, { headers: admin })).status, 404);
    assert.equal((await ok(a, 'GET', list)).results.length, before.results.length);
  });

  it('shows on one process a draft published on the other at once, in the list and the document', async () => {
    const { a, b } = pair();
    const created = await ok(a, 'POST', '/api/v1/article', { headers: admin, body: { title: 'Published title' } });
    const one = `/api/v1/article/${encodeURIComponent(created._id)}`;
    const draft = `/api/v1/article/${encodeURIComponent(created._id.replace(/:published$/, ':draft'))}`;
    const list = '/api/v1/article?perPage=100';
    const titleIn = (answer: { results: { _id: string; title: string }[] }) => answer.results.find((doc) => doc._id === created._id)?.title;
    // Kept by process a: asked twice.
    for (let i = 0; i < 2; i++) {
      assert.equal((await ok(a, 'GET', one)).title, 'Published title');
      assert.equal(titleIn(await ok(a, 'GET', list)), 'Published title');
    }
    await ok(b, 'PATCH', draft, { headers: admin, body: { title: 'Draft title' } });
    assert.equal((await ok(a, 'GET', one)).title, 'Published title', 'a draft save changes no published answer');
    assert.equal(titleIn(await ok(a, 'GET', list)), 'Published title');
    assert.equal((await ok(a, 'GET', draft, { headers: admin })).title, 'Draft title', 'the draft is read on the other process at once');
    await ok(b, 'POST', `${draft}/publish`, { headers: admin });
    assert.equal((await ok(a, 'GET', one)).title, 'Draft title', 'the published document on the other process at once');
    assert.equal(titleIn(await ok(a, 'GET', list)), 'Draft title', 'and the list');
  });

  it("reads on one process a document published on the other again, while another document's kept answer stands", async () => {
    const { a, b } = pair();
    const first = await ok(a, 'POST', '/api/v1/article', { headers: admin, body: { title: 'First' } });
    const second = await ok(a, 'POST', '/api/v1/article', { headers: admin, body: { title: 'Second' } });
    const oneOf = (doc: { _id: string }) => `/api/v1/article/${encodeURIComponent(doc._id)}`;
    for (let i = 0; i < 2; i++) for (const doc of [first, second]) await ok(a, 'GET', oneOf(doc));
    const kept = await call(a, 'GET', oneOf(second));
    const draft = `/api/v1/article/${encodeURIComponent(`${first.cmsDocId}:en:draft`)}`;
    await ok(b, 'PATCH', draft, { headers: admin, body: { title: 'First, republished' } });
    await ok(b, 'POST', `${draft}/publish`, { headers: admin });
    assert.equal((await ok(a, 'GET', oneOf(first))).title, 'First, republished', 'the document published on the other process, at once');
    const again = await call(a, 'GET', oneOf(second));
    assert.deepEqual([again.status, again.text, again.headers.etag], [200, kept.text, kept.headers.etag], 'the other document answers as before');
  });

  it('refuses on one process a bearer token logged out on the other', async () => {
    const { a, b } = pair();
    const { password } = await createUser(a, 'bearer-user', 'editor');
    const bearer = await bearerOf(a, 'bearer-user', password);
    assert.equal((await ok(b, 'GET', '/api/v1/@cms/login/whoami', { headers: bearer })).username, 'bearer-user');
    await ok(b, 'POST', '/api/v1/@cms/login/logout', { headers: bearer });
    for (const server of [a, b]) {
      const refused = await call(server, 'GET', '/api/v1/@cms/login/whoami', { headers: bearer });
      assert.equal(refused.status, 401, refused.text);
      assert.equal(refused.body.name, 'unauthorized');
    }
  });

  it('ends on one process a session cookie signed out on the other', async () => {
    const { a, b } = pair();
    const { password } = await createUser(b, 'session-user', 'editor');
    const login = await call(b, 'POST', '/api/v1/@cms/login/login', { body: { username: 'session-user', password, session: true } });
    assert.equal(login.status, 200, login.text);
    const cookie = ([] as string[]).concat(login.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]).join('; ');
    const whoami = (server: ServerProcess) => call(server, 'GET', '/api/v1/@cms/login/whoami', { headers: { cookie } });
    assert.equal((await whoami(a)).body.username, 'session-user');
    const logout = await call(a, 'POST', '/api/v1/@cms/login/logout', { headers: { cookie, 'x-csrf-token': login.body.csrfToken } });
    assert.equal(logout.status, 200, logout.text);
    for (const server of [b, a]) {
      // A session that ended leaves the caller anonymous: whoami then has no one to name.
      const ended = await whoami(server);
      assert.equal(ended.status, 404, ended.text);
      const write = await call(server, 'POST', '/api/v1/article', { headers: { cookie }, body: { title: 'After sign-out' } });
      assert.equal(write.status, 403, write.text);
    }
  });

  it('enforces on one process a role changed on the other, at once', async () => {
    const { a, b } = pair();
    const { id, password } = await createUser(a, 'demoted-user', 'editor');
    const bearer = await bearerOf(b, 'demoted-user', password);
    await ok(b, 'POST', '/api/v1/article', { headers: bearer, body: { title: 'Written as an editor' } });
    await ok(a, 'PATCH', `/api/v1/@cms/user/${encodeURIComponent(id)}`, { headers: admin, body: { role: 'guest' } });
    const refused = await call(b, 'POST', '/api/v1/article', { headers: bearer, body: { title: 'Written as a guest' } });
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await ok(b, 'GET', '/api/v1/@cms/login/whoami', { headers: bearer })).role, 'guest');
    // And back: the other process lets the editor write again.
    await ok(b, 'PATCH', `/api/v1/@cms/user/${encodeURIComponent(id)}`, { headers: admin, body: { role: 'editor' } });
    await ok(a, 'POST', '/api/v1/article', { headers: bearer, body: { title: 'An editor again' } });
  });

  it('counts failed logins on both processes against one throttle', async () => {
    const { a, b } = pair();
    const { password } = await createUser(a, 'throttled-user', 'editor');
    const attempt = (server: ServerProcess, pass: string) => call(server, 'POST', '/api/v1/@cms/login/login', { body: { username: 'throttled-user', password: pass } });
    // Three failures a minute lock the name: two through one process, one through the other.
    for (const server of [a, b, a]) assert.equal((await attempt(server, 'wrong-password-0')).status, 400);
    for (const server of [b, a]) {
      const locked = await attempt(server, password);
      assert.equal(locked.status, 429, locked.text);
      assert.equal(locked.body.name, 'toomany');
      const retryAfter = Number(locked.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${String(locked.headers['retry-after'])}`);
    }
  });

  it(`loses no $inc nor $push of ${writesPerProcess} sent through each process at the same time`, async () => {
    const { a, b } = pair();
    const created = await ok(a, 'POST', '/api/v1/article', { headers: admin, body: { title: 'Counted', hits: 0, entries: [] } });
    const url = `/api/v1/article/${encodeURIComponent(created._id)}`;
    const sendAll = async (server: ServerProcess, name: string) => {
      const statuses: number[] = [];
      for (let start = 0; start < writesPerProcess; start += batchSize) {
        const batch = Array.from({ length: batchSize }, (_, i) =>
          call(server, 'PATCH', url, { headers: admin, body: { $inc: { hits: 1 }, $push: { entries: { label: `${name}-${start + i}` } } } }),
        );
        for (const res of await Promise.all(batch)) {
          statuses.push(res.status);
          if (res.status !== 200) assert.fail(`PATCH through ${name}: ${res.status} ${res.text}`);
        }
      }
      return statuses;
    };
    const [fromA, fromB] = await Promise.all([sendAll(a, 'a'), sendAll(b, 'b')]);
    assert.equal(fromA.length + fromB.length, 2 * writesPerProcess);

    const expected = ['a', 'b'].flatMap((name) => Array.from({ length: writesPerProcess }, (_, i) => `${name}-${i}`)).sort();
    for (const server of [a, b]) {
      const doc = await ok(server, 'GET', url, { headers: admin });
      assert.equal(doc.hits, 2 * writesPerProcess, `the count read on port ${server.port}`);
      const labels = doc.entries.map((entry: { label: string }) => entry.label).sort();
      assert.deepEqual(labels, expected, `the items read on port ${server.port}`);
      assert.equal(new Set(doc.entries.map((entry: { _id: string }) => entry._id)).size, 2 * writesPerProcess, 'each item has an id of its own');
    }
  });

  it('refuses on one process a write whose If-Match the other made stale (412), while the one that read last goes through', async () => {
    const { a, b } = pair();
    const created = await ok(a, 'POST', '/api/v1/article', { headers: admin, body: { title: 'Two editors' } });
    const draft = `/api/v1/article/${encodeURIComponent(`${created.cmsDocId}:en:draft`)}`;
    const readOnA = await call(a, 'GET', draft, { headers: admin });
    const readOnB = await call(b, 'GET', draft, { headers: admin });
    assert.equal(readOnA.headers.etag, readOnB.headers.etag, 'both processes name the version alike');
    const savedOnA = await call(a, 'PATCH', draft, { headers: { ...admin, 'if-match': String(readOnA.headers.etag) }, body: { hits: 1 } });
    assert.equal(savedOnA.status, 200, savedOnA.text);
    const staleOnB = await call(b, 'PATCH', draft, { headers: { ...admin, 'if-match': String(readOnB.headers.etag) }, body: { title: 'Lost?' } });
    assert.equal(staleOnB.status, 412, staleOnB.text);
    assert.equal(staleOnB.body.name, 'changed');
    const chainedOnB = await call(b, 'PATCH', draft, { headers: { ...admin, 'if-match': String(savedOnA.headers.etag) }, body: { title: 'Both kept' } });
    assert.equal(chainedOnB.status, 200, chainedOnB.text);
    const stored = await ok(a, 'GET', draft, { headers: admin });
    assert.equal(stored.title, 'Both kept');
    assert.equal(stored.hits, 1);

    // Racing: each process sends 10 writes with the same If-Match at once; exactly one of the 20 wins.
    const etag = String((await call(a, 'GET', draft, { headers: admin })).headers.etag);
    const race = await Promise.all(
      Array.from({ length: 20 }, (_, n) => call(n % 2 === 0 ? a : b, 'PATCH', draft, { headers: { ...admin, 'if-match': etag }, body: { hits: 100 + n } })),
    );
    assert.deepEqual(race.map((res) => res.status).sort(), [200, ...Array<number>(19).fill(412)]);

    // Every other write route, sent to one process with the ETag the other made stale: 412, nothing written.
    await ok(a, 'POST', `${draft}/publish`, { headers: admin });
    const staleDraft = String((await call(b, 'GET', draft, { headers: admin })).headers.etag);
    const published = draft.replace('%3Adraft', '%3Apublished');
    const stalePublished = String((await call(b, 'GET', published, { headers: admin })).headers.etag);
    await ok(a, 'PATCH', draft, { headers: admin, body: { title: 'Moved on' } });
    await ok(a, 'POST', `${draft}/publish`, { headers: admin });
    const routes: [string, string, string, unknown?][] = [
      ['PUT', draft, staleDraft, { title: 'Put' }],
      ['DELETE', draft, staleDraft],
      ['POST', `${draft}/publish`, staleDraft],
      ['POST', `${draft}/unpublish`, staleDraft],
      ['POST', `${draft}/revert-draft-to-published`, staleDraft],
      ['POST', `${draft}/localize`, staleDraft, { toLocale: 'es' }],
      ['POST', `${published}/revert-published-to-previous`, stalePublished],
    ];
    for (const [method, path, etag, body] of routes) {
      const res = await call(b, method, path, { headers: { ...admin, 'if-match': etag }, body });
      assert.equal(res.status, 412, `${method} ${path}: ${res.text}`);
    }
    assert.equal((await ok(a, 'GET', published, { headers: admin })).title, 'Moved on', 'nothing was written');
  });

  it('sees on one process the advisory lock taken on the other', async () => {
    const { a, b } = pair();
    const ann = await createUser(a, 'lock-ann', 'editor');
    const bob = await createUser(a, 'lock-bob', 'editor');
    const annHeaders = await bearerOf(a, 'lock-ann', ann.password);
    const bobHeaders = await bearerOf(b, 'lock-bob', bob.password);
    const created = await ok(a, 'POST', '/api/v1/article', { headers: admin, body: { title: 'Locked across' } });
    const draft = `/api/v1/article/${encodeURIComponent(`${created.cmsDocId}:en:draft`)}`;
    await ok(a, 'PATCH', draft, { headers: annHeaders, body: { _advisoryLock: { tabId: 'ann-tab', lock: true } } });
    const refused = await call(b, 'PATCH', draft, { headers: bobHeaders, body: { _advisoryLock: { tabId: 'bob-tab', lock: true }, title: 'Bob' } });
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(refused.body.data, { username: 'lock-ann', title: 'lock-ann' });
    await ok(b, 'PATCH', draft, { headers: bobHeaders, body: { _advisoryLock: { tabId: 'bob-tab', lock: true, force: true } } });
    const annRefused = await call(a, 'PATCH', draft, { headers: annHeaders, body: { _advisoryLock: { tabId: 'ann-tab', lock: true } } });
    assert.equal(annRefused.status, 409);
    assert.deepEqual(annRefused.body.data, { username: 'lock-bob', title: 'lock-bob' });
  });

  it('ends on one process a draft link unshared on the other, at once', async () => {
    const { a, b } = pair();
    const created = await ok(a, 'POST', '/api/v1/article?cmsMode=draft', { headers: admin, body: { title: 'Shared across' } });
    const draftPath = `/api/v1/article/${encodeURIComponent(created._id)}`;
    const { cmsShareKey } = await ok(a, 'POST', `${draftPath}/share`, { headers: admin, body: { share: true } });
    const link = `${draftPath}?cmsShareId=${encodeURIComponent(created._id)}&cmsShareKey=${encodeURIComponent(cmsShareKey)}`;
    assert.equal((await ok(b, 'GET', link)).title, 'Shared across');
    await ok(a, 'POST', `${draftPath}/share`, { headers: admin, body: { share: false } });
    assert.equal((await call(b, 'GET', link)).status, 404);
  });

  it("tells a change stream on one process of the other's commits within a second, and of an editor's presence there", async () => {
    const { a, b } = pair();
    const { password } = await createUser(a, 'presence-editor', 'editor');
    const editor = await bearerOf(a, 'presence-editor', password);
    const stream = await openEventStream(b.port, '/api/v1/@cms/events?presence=true', admin);
    try {
      const written = Date.now();
      const created = await ok(a, 'POST', '/api/v1/article?cmsMode=draft', { headers: admin, body: { title: 'Streamed across' } });
      const insert = await stream.next((event) => event.event === 'insert' && event.data.cmsDocId === created.cmsDocId, 1_000);
      assert.equal(insert.data._id, created._id);
      assert.ok(Date.now() - written < 1_000);
      await ok(a, 'POST', '/api/v1/@cms/presence', { headers: editor, body: { type: 'article', cmsDocId: created.cmsDocId, cmsLocale: 'en', state: 'editing', tabId: 'across-tab-1' } });
      const here = await stream.next((event) => event.event === 'presence' && event.data.cmsDocId === created.cmsDocId, 3_000);
      assert.deepEqual(here.data.present.map((one: { title: string; state: string }) => [one.title, one.state]), [['presence-editor', 'editing']]);
      assert.equal((await call(a, 'DELETE', '/api/v1/@cms/presence/across-tab-1', { headers: editor })).status, 204);
      await stream.next((event) => event.event === 'presence' && event.data.cmsDocId === created.cmsDocId && event.data.present.length === 0, 3_000);
    } finally {
      stream.close();
      await stream.ended;
    }
  });
}


describe('two server processes on one SQLite file', () => {
  let pair: Pair & { stop: () => Promise<void> };
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cms-cross-sqlite-'));
    pair = await startPair({ CMS_DATA_DIR: dataDir });
  });
  after(async () => {
    await pair?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  crossProcessScenarios(() => pair);
});

describeOnPostgres('two server processes on one PostgreSQL schema', () => {
  let pair: Pair & { stop: () => Promise<void> };
  let database: SchemaDatabase;
  before(async () => {
    database = await newSchemaDatabase();
    pair = await startPair({ CMS_DATABASE_URL: database.url });
  });
  after(async () => {
    await pair?.stop();
    await database?.drop();
  });

  crossProcessScenarios(() => pair);
});
