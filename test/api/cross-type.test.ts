import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cheapPasswordHasher, startTestApp, testConfig, type TestApp, type TestResponse, type keys } from '../helpers/test-app.js';
import { makeImage, uploaded } from '../helpers/media.js';

/**
 * Issue 20, point 1: a route of one type never reaches another type's document. Every route of
 * a type, called by every kind of caller with the ids of documents of other types (notes,
 * images, users, and a `localized: false` type's), answers exactly as for an id that names no
 * document at all (404 wherever the caller may use the route; `locales` lists nothing), and
 * the other documents stay as they were.
 */

/** The fixture types plus `contact`: not localized, with a string field named `role`. */
function crossTypeConfig(): Record<string, unknown> {
  // whoami answers the role only when asked to, as the original's does.
  const config = { ...testConfig(), login: { whoamiFields: ['role'] } } as unknown as { modules: Record<string, unknown> };
  config.modules.contact = {
    extend: '@cms/piece-type',
    options: { label: 'Contact', localized: false },
    fields: { add: { role: { type: 'string' }, email: { type: 'string' } } },
  };
  return config;
}

/** A docId of the same shape that names no document: what a foreign id must answer like. */
const missingDocId = 'zzzzzzzzzzzzzzzzzzzzzzzz';

interface Caller {
  readonly key: keyof typeof keys | null;
  readonly headers?: Record<string, string>;
}

interface Route {
  readonly name: string;
  readonly method: 'GET' | 'PUT' | 'PATCH' | 'DELETE' | 'POST';
  readonly action: string;
  readonly body?: Record<string, unknown>;
}

/** Every route of a piece type that takes an id; the writes would change the document if they reached it. */
const routes: readonly Route[] = [
  { name: 'GET one', method: 'GET', action: '' },
  { name: 'PUT', method: 'PUT', action: '', body: { title: 'pwned', role: 'admin', username: 'pwned' } },
  { name: 'empty PATCH', method: 'PATCH', action: '', body: {} },
  { name: 'PATCH', method: 'PATCH', action: '', body: { title: 'pwned', role: 'admin', archived: true } },
  { name: 'DELETE', method: 'DELETE', action: '' },
  { name: 'publish', method: 'POST', action: '/publish' },
  { name: 'unpublish', method: 'POST', action: '/unpublish' },
  { name: 'localize', method: 'POST', action: '/localize', body: { toLocale: 'es', update: true } },
  { name: 'revert-draft-to-published', method: 'POST', action: '/revert-draft-to-published' },
  { name: 'revert-published-to-previous', method: 'POST', action: '/revert-published-to-previous' },
  { name: 'locales', method: 'GET', action: '/locales' },
];

describe('a route of one type never reaches another type\'s document (issue 20)', () => {
  let t: TestApp;
  /** The cmsDocIds of the documents of other types. */
  const doc = { note: '', image: '', contact: '', admin: '', editor: '' };
  let callers: Record<string, Caller>;

  before(async () => {
    t = await startTestApp(crossTypeConfig(), {}, { passwordHasher: cheapPasswordHasher() });
    doc.note = await publishedTwiceAndModified('note', { title: 'Kept note', text: 'kept' });
    const attachment = await uploaded(t, 'kept.png', await makeImage('png', 8, 8));
    doc.image = (await created('@cms/image', { title: 'Kept image', attachment: { _id: attachment._id } })).cmsDocId;
    doc.contact = (await created('contact', { title: 'Kept contact', role: 'kept', email: 'kept@example.com' }))._id;
    doc.admin = await user('boss', 'admin');
    doc.editor = await user('eddie', 'editor');
    callers = {
      'admin key': { key: 'admin' },
      'editor key': { key: 'editor' },
      'contributor key': { key: 'contributor' },
      'guest key': { key: 'guest' },
      anonymous: { key: null },
      'signed-in editor': { key: null, headers: await bearer('eddie') },
    };
  });
  after(() => t.close());

  async function created(type: string, body: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await t.request('POST', `/api/v1/${type}`, { body });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  /** Published twice (so a previous copy exists), then its draft changed: every route has something to act on. */
  async function publishedTwiceAndModified(type: string, body: Record<string, unknown>): Promise<string> {
    const { cmsDocId } = await created(type, body);
    for (const title of ['Republished', 'Kept draft']) {
      const res = await t.request('PATCH', `/api/v1/${type}/${cmsDocId}:en:draft`, { body: { title } });
      assert.equal(res.status, 200, res.text);
      if (title === 'Republished') assert.equal((await t.request('POST', `/api/v1/${type}/${cmsDocId}/publish`)).status, 200);
    }
    return cmsDocId;
  }

  async function user(username: string, role: string): Promise<string> {
    return (await created('@cms/user', { title: username, username, email: `${username}@example.com`, password: `${username}-password-123`, role }))._id;
  }

  async function login(username: string): Promise<TestResponse> {
    return t.request('POST', '/api/v1/@cms/login/login', { key: null, body: { username, password: `${username}-password-123` } });
  }

  async function bearer(username: string): Promise<Record<string, string>> {
    const res = await login(username);
    assert.equal(res.status, 200, res.text);
    return { authorization: `Bearer ${res.body.token}` };
  }

  function send(caller: Caller, route: Route, path: string): Promise<TestResponse> {
    return t.request(route.method, path, { key: caller.key, headers: caller.headers, body: route.body });
  }

  /** What an admin reads of the other documents through their own types, and how many versions each type holds. */
  async function snapshot(): Promise<Record<string, unknown>> {
    const read = async (path: string) => {
      const res = await t.request('GET', path);
      return { status: res.status, body: res.body };
    };
    const versions = async (type: string, docId: string) => {
      const listed = await read(`/api/v1/${type}/${docId}/locales`);
      const all = await Promise.all(
        (listed.body.results as { _id: string; cmsLocale: string }[])
          .filter(({ cmsLocale }) => !cmsLocale.endsWith(':previous'))
          .map(({ _id }) => read(`/api/v1/${type}/${_id}?archived=any`)),
      );
      return { listed, all };
    };
    const counts: Record<string, unknown> = {};
    for (const type of ['article', 'note', '@cms/image', 'contact', '@cms/user']) {
      for (const mode of ['draft', 'published']) counts[`${type} ${mode}`] = (await read(`/api/v1/${type}?cmsMode=${mode}&archived=any&count=1`)).body;
    }
    return {
      note: await versions('note', doc.note),
      image: await versions('@cms/image', doc.image),
      contact: await read(`/api/v1/contact/${doc.contact}`),
      admin: await read(`/api/v1/@cms/user/${doc.admin}`),
      editor: await read(`/api/v1/@cms/user/${doc.editor}`),
      counts,
    };
  }

  /** The same id with its docId replaced by one that names nothing. */
  const missingFormOf = (id: string, docId: string) => id.replace(docId, missingDocId);

  /** The ids of other types' documents each route is tried with, in every form: `_id` and cmsDocId, draft and published. */
  function foreignIds(type: string): { id: string; docId: string; query: string }[] {
    const forms = (docId: string) => [
      { id: `${docId}:en:draft`, docId, query: '' },
      { id: `${docId}:en:published`, docId, query: '' },
      { id: docId, docId, query: '' },
      { id: docId, docId, query: '?cmsMode=draft' },
      { id: `${docId}:en:published`, docId, query: '?cmsLocale=en:draft' },
    ];
    const bare = (docId: string) => [{ id: docId, docId, query: '' }];
    if (type === 'article') return [...forms(doc.note), ...forms(doc.image), ...bare(doc.contact), ...bare(doc.admin)];
    if (type === 'contact') return [...bare(doc.admin), ...bare(doc.editor), ...forms(doc.note).slice(0, 3)];
    return [...bare(doc.contact), ...forms(doc.note).slice(0, 3)];
  }

  it('answers every route of every type as for a missing id, for every caller, and changes nothing', async () => {
    const before = await snapshot();
    let cases = 0;
    for (const type of ['article', 'contact', '@cms/user']) {
      for (const { id, docId, query } of foreignIds(type)) {
        for (const [who, caller] of Object.entries(callers)) {
          for (const route of routes) {
            const label = `${who}: ${route.method} /api/v1/${type}/${id}${route.action}${query}`;
            const foreign = await send(caller, route, `/api/v1/${type}/${id}${route.action}${query}`);
            const missing = await send(caller, route, `/api/v1/${type}/${missingFormOf(id, docId)}${route.action}${query}`);
            assert.equal(foreign.status, missing.status, `${label}: ${foreign.text}`);
            assert.deepEqual(foreign.body, missing.body, label);
            if (route.name === 'locales' && foreign.status === 200) {
              assert.deepEqual(foreign.body, { results: [] }, label);
            } else {
              assert.ok([400, 403, 404].includes(foreign.status), `${label}: ${foreign.status} ${foreign.text}`);
              assert.deepEqual(Object.keys(foreign.body).sort(), ['data', 'message', 'name'], label);
            }
            // Whoever may use the route finds nothing: an admin and an editor everywhere the type allows it.
            if (who === 'admin key' || who === 'editor key' || who === 'signed-in editor') {
              const publishing = route.action !== '' && route.name !== 'locales';
              const expected = route.name === 'locales' ? 200 : publishing && type !== 'article' ? 400 : 404;
              const refused = type === '@cms/user' && who !== 'admin key';
              if (!refused) assert.equal(foreign.status, expected, `${label}: ${foreign.text}`);
            }
            cases++;
          }
        }
      }
    }
    assert.ok(cases > 1000, `${cases} cases`);
    assert.deepEqual(await snapshot(), before);
  });

  describe('the reproductions', () => {
    it('an admin key cannot PATCH a note through the article route', async () => {
      const before = await snapshot();
      for (const id of [`${doc.note}:en:published`, `${doc.note}:en:draft`, doc.note]) {
        const res = await t.request('PATCH', `/api/v1/article/${id}`, { body: { title: 'pwned' } });
        assert.equal(res.status, 404, res.text);
        assert.deepEqual(res.body, { name: 'notfound', message: 'notfound', data: {} });
      }
      assert.deepEqual(await snapshot(), before);
      assert.equal((await t.request('GET', `/api/v1/note/${doc.note}:en:draft`)).body.title, 'Kept draft');
    });

    it('a contributor cannot read or change an image draft through the article route', async () => {
      const before = await snapshot();
      const direct = await t.request('PATCH', `/api/v1/@cms/image/${doc.image}?cmsMode=draft`, { key: 'contributor', body: {} });
      assert.equal(direct.status, 403, direct.text);
      for (const body of [{}, { title: 'pwned' }]) {
        const res = await t.request('PATCH', `/api/v1/article/${doc.image}?cmsMode=draft`, { key: 'contributor', body });
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.name, 'notfound');
        assert.doesNotMatch(res.text, /Kept image/);
      }
      assert.deepEqual(await snapshot(), before);
    });

    it('an editor cannot read, lock out or promote users through a type that is not localized', async () => {
      const before = await snapshot();
      const read = await t.request('PATCH', `/api/v1/contact/${doc.admin}`, { key: 'editor', body: {} });
      assert.equal(read.status, 404, read.text);
      assert.doesNotMatch(read.text, /boss/);
      const lockout = await t.request('PATCH', `/api/v1/contact/${doc.admin}`, { key: 'editor', body: { archived: true } });
      assert.equal(lockout.status, 404, lockout.text);
      assert.equal((await login('boss')).status, 200, 'the admin still signs in');
      const eddie = await bearer('eddie');
      for (const method of ['PATCH', 'PUT'] as const) {
        const promoted = await t.request(method, `/api/v1/contact/${doc.editor}`, { key: null, headers: eddie, body: { title: 'eddie', role: 'admin' } });
        assert.equal(promoted.status, 404, promoted.text);
      }
      const whoami = await t.request('GET', '/api/v1/@cms/login/whoami', { key: null, headers: eddie });
      assert.equal(whoami.status, 200, whoami.text);
      assert.equal(whoami.body.role, 'editor');
      assert.deepEqual(await snapshot(), before);
    });

    it('the user route does not turn a contact into a login', async () => {
      const before = await snapshot();
      const body = { title: 'intruder', username: 'intruder', password: 'intruder-password-123', role: 'admin' };
      const res = await t.request('PATCH', `/api/v1/@cms/user/${doc.contact}`, { body });
      assert.equal(res.status, 404, res.text);
      assert.equal((await t.request('PUT', `/api/v1/@cms/user/${doc.contact}`, { body })).status, 404);
      assert.equal((await login('intruder')).status, 400);
      assert.deepEqual(await snapshot(), before);
    });

    it('publish and localize write no version of the route\'s type over another type\'s document', async () => {
      const before = await snapshot();
      for (const [action, body] of [['publish', undefined], ['localize', { toLocale: 'es' }]] as const) {
        const res = await t.request('POST', `/api/v1/article/${doc.note}:en:draft/${action}`, { body });
        assert.equal(res.status, 404, res.text);
      }
      assert.equal((await t.request('GET', `/api/v1/article/${doc.note}:es:draft`)).status, 404);
      assert.equal((await t.request('GET', `/api/v1/note/${doc.note}:es:draft`)).status, 404);
      assert.deepEqual(await snapshot(), before);
    });
  });
});
