import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { keys, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { makeImage, uploaded } from '../helpers/media.js';
import { countFinds } from '../helpers/find-counter.js';

type Key = keyof typeof keys | null;

/** `person` is shown inside `article` through `_authors`: a write to one changes the other's answers. */
function cacheConfig(): Record<string, unknown> {
  const config = testConfig();
  const modules = config.modules as Record<string, any>;
  modules.person = { extend: '@cms/piece-type', options: { publicApiProjection: { title: 1, slug: 1 } }, fields: { add: { bio: { type: 'string' } } } };
  modules.article.fields.add._authors = { type: 'relationship', withType: 'person' };
  modules.article.options.publicApiProjection._authors = 1;
  return config;
}

describe('response cache: ETag, 304, Cache-Control, compression', () => {
  const counter = { finds: 0 };
  let t: TestApp;
  let doc: Record<string, any>;
  before(async () => {
    t = await startTestApp(cacheConfig(), {}, { wrapStorage: countFinds(counter) });
    doc = (await t.request('POST', '/api/v1/article', { body: { title: 'Hello', category: 'x'.repeat(3000) } })).body;
  });
  after(() => t.close());

  it('answers a second anonymous or API-key read from memory, without reading the store', async () => {
    for (const key of [null, 'guest'] as Key[]) {
      for (const url of ['/api/v1/article', `/api/v1/article/${doc._id}`]) {
        const first = await t.request('GET', url, { key });
        const finds = counter.finds;
        const second = await t.request('GET', url, { key });
        assert.equal(counter.finds, finds, `${url} as ${key}: no read the second time`);
        assert.equal(second.text, first.text);
        assert.equal(second.headers.etag, first.headers.etag);
      }
    }
  });

  it('keys by the URL, its parameters in order; by type and id', async () => {
    const a = await t.request('GET', '/api/v1/article?perPage=5&page=1', { key: null });
    const finds = counter.finds;
    const b = await t.request('GET', '/api/v1/article?page=1&perPage=5', { key: null });
    assert.equal(counter.finds, finds, 'the same parameters in another order share the answer');
    assert.equal(b.text, a.text);
    const c = await t.request('GET', '/api/v1/article?page=1&perPage=6', { key: null });
    assert.ok(counter.finds > finds, 'other parameters are another answer');
    assert.equal(c.status, 200);
    assert.equal((await t.request('GET', '/api/v1/note', { key: null })).status, 404, 'notes have no public API');
  });

  it('answers a hit from the raw URL before the route reads its query, for the audience it was built for alone', async () => {
    const url = '/api/v1/article?perPage=7';
    const read = async (target: string, headers: Record<string, string> = {}, method = 'GET') => {
      const finds = counter.finds;
      const answer = await t.app.inject({ method: method as 'GET', url: target, headers });
      return { status: answer.statusCode, text: answer.body, etag: answer.headers.etag, read: counter.finds > finds };
    };
    const admin = await read(`${url}&apikey=${keys.admin}`);
    assert.equal(admin.status, 200);
    const again = await read(`/api/v1/article?apikey=${keys.admin}&perPage=7`);
    assert.deepEqual({ ...again, read: false }, { ...admin, read: again.read });
    assert.equal(again.read, false, 'the key in another place of the query string is the same audience and URL');
    assert.equal((await read(url, { authorization: `ApiKey ${keys.admin}` })).read, false, 'and so is the key in the header');
    const anonymous = await read(url);
    assert.equal(anonymous.read, true, 'an anonymous caller never gets the key\'s answer');
    assert.notEqual(anonymous.text, admin.text);
    assert.equal((await read(url)).read, false);
    assert.equal((await read(url, { authorization: `ApiKey ${keys.guest}` })).read, true, 'nor another key');
    assert.equal((await read(`${url}&apikey=not-a-key`)).status, 403, 'a refused key never reaches the cache');
    const encoded = await read(`${url}&%61pikey=${keys.admin}`);
    assert.equal(encoded.text, admin.text, 'a key under an encoded name is still the key');
    assert.equal((await read(`${url}&%61pikey=${keys.admin}`)).read, true, 'but its answer is not kept: the key would be kept with it');
    // Two keys, or a key as a list, are refused before any cache is asked.
    for (const query of [`apikey=${keys.admin}&%61pikey=${keys.admin}`, `apikey[]=${keys.admin}`]) {
      assert.equal((await read(`${url}&${query}`)).status, 403, query);
    }
    const head = await read(url, {}, 'HEAD');
    assert.deepEqual([head.status, head.etag, head.text, head.read], [200, anonymous.etag, '', false], 'HEAD is answered from the GET\'s entry');
    assert.equal((await read(url, { 'if-none-match': anonymous.etag as string })).status, 304);
    for (let round = 0; round < 2; round++) assert.equal((await read('/api/v1/article?page=abc')).status, 400, 'a refused query is never kept');
  });

  it('keeps answers while only types they do not read are written', async () => {
    const read = async (url: string) => {
      const finds = counter.finds;
      const answer = await t.request('GET', url, { key: null });
      assert.equal(answer.status, 200);
      return { text: answer.text, read: counter.finds > finds };
    };
    await read('/api/v1/article');
    await read('/api/v1/person');
    assert.equal((await t.request('POST', '/api/v1/note', { body: { title: 'Unrelated' } })).status, 200);
    assert.equal((await read('/api/v1/article')).read, false, 'a note leaves the articles');
    assert.equal((await t.request('POST', '/api/v1/article', { body: { title: 'Another' } })).status, 200);
    assert.equal((await read('/api/v1/person')).read, false, 'an article leaves the people it relates to');
    const articles = await read('/api/v1/article');
    assert.equal(articles.read, true, 'an article is seen in the next article list');
    assert.match(articles.text, /Another/);
    assert.equal((await t.request('POST', '/api/v1/person', { body: { title: 'Ada' } })).status, 200);
    assert.equal((await read('/api/v1/article')).read, true, 'a person may be shown in the articles: they are read again');
  });

  it('keeps the published answers while a draft is saved, and drops them once it is published', async () => {
    const read = async (url: string, key: Key = null) => {
      const finds = counter.finds;
      const answer = await t.request('GET', url, { key });
      assert.equal(answer.status, 200, url);
      return { text: answer.text, read: counter.finds > finds };
    };
    const a = (await t.request('POST', '/api/v1/article', { body: { title: 'Alpha' } })).body;
    const b = (await t.request('POST', '/api/v1/article', { body: { title: 'Beta' } })).body;
    const published = [`/api/v1/article/${a._id}`, `/api/v1/article/${b._id}`, '/api/v1/article?perPage=50'];
    for (const url of published) await read(url);
    await read('/api/v1/article?perPage=50&cmsMode=draft', 'editor');
    const draftId = a._id.replace(/:published$/, ':draft');
    const saved = await t.request('PATCH', `/api/v1/article/${draftId}`, { body: { title: 'Alpha, edited' } });
    assert.equal(saved.status, 200);
    for (const url of published) {
      const answer = await read(url);
      assert.equal(answer.read, false, `${url}: a draft save leaves the published answer kept`);
      assert.doesNotMatch(answer.text, /Alpha, edited/);
    }
    const drafts = await read('/api/v1/article?perPage=50&cmsMode=draft', 'editor');
    assert.equal(drafts.read, true, 'the drafts are read again');
    assert.match(drafts.text, /Alpha, edited/);
    assert.equal((await t.request('POST', `/api/v1/article/${draftId}/publish`)).status, 200);
    for (const url of [published[0]!, published[2]!]) {
      const answer = await read(url);
      assert.equal(answer.read, true, `${url}: publishing drops it`);
      assert.match(answer.text, /Alpha, edited/);
    }
  });

  it('tags anonymous answers for a CDN (Surrogate-Key, Cache-Tag): a document by itself and the types it can show, a list by type', async () => {
    const person = (await t.request('POST', '/api/v1/person', { body: { title: 'Tagged' } })).body;
    const withAuthor = (await t.request('POST', '/api/v1/article', { body: { title: 'Tagged article', _authors: [person._id] } })).body;
    const one = await t.request('GET', `/api/v1/article/${withAuthor._id}`, { key: null });
    const tags = String(one.headers['surrogate-key']).split(' ');
    assert.deepEqual(tags.filter((tag) => tag.startsWith('doc:')), [`doc:${withAuthor.cmsDocId}`], 'its document, not the one it embeds');
    assert.ok(tags.includes('person') && tags.includes('person:published'), 'the types it can show');
    const own = await t.request('GET', `/api/v1/person/${person._id}`, { key: null });
    assert.equal(own.headers['surrogate-key'], `doc:${person.cmsDocId}`, "a type that shows nothing else: its document alone (another person's publication leaves it)");
    assert.equal(one.headers['cache-tag'], String(one.headers['surrogate-key']).split(' ').join(','));
    const cached = await t.request('GET', `/api/v1/article/${withAuthor._id}`, { key: null });
    assert.equal(cached.headers['surrogate-key'], one.headers['surrogate-key'], 'a cached answer has the same tags');
    const list = await t.request('GET', '/api/v1/article', { key: null });
    const listTags = String(list.headers['surrogate-key']).split(' ');
    assert.ok(listTags.includes('article:published'));
    assert.ok(!listTags.some((tag) => tag.startsWith('doc:')), 'a list is tagged by type');
    for (const key of ['guest', 'admin'] as Key[]) {
      const keyed = await t.request('GET', `/api/v1/article/${doc._id}`, { key });
      assert.equal(keyed.headers['surrogate-key'], undefined, `${key}: not stored by a shared cache, never tagged`);
      assert.equal(keyed.headers['cache-tag'], undefined);
    }
  });

  it('never names in its tags a document the answer hides (an unpublished or archived author), and tags alike whatever the relationships hold', async () => {
    const [unpublished, archived] = await Promise.all(['Unpublished author', 'Archived author'].map(async (title) => (await t.request('POST', '/api/v1/person', { body: { title } })).body));
    const article = (await t.request('POST', '/api/v1/article', { body: { title: 'Hidden authors', _authors: [unpublished._id, archived._id] } })).body;
    const alone = (await t.request('POST', '/api/v1/article', { body: { title: 'No authors' } })).body;
    assert.equal((await t.request('POST', `/api/v1/person/${unpublished._id}/unpublish`)).status, 200);
    assert.equal((await t.request('PATCH', `/api/v1/person/${archived._id}`, { body: { archived: true } })).status, 200);
    const one = await t.request('GET', `/api/v1/article/${article._id}`, { key: null });
    assert.equal(one.status, 200);
    assert.deepEqual(one.body._authors, [], 'the answer shows neither');
    for (const header of [one.headers['surrogate-key'], one.headers['cache-tag']]) {
      for (const id of [unpublished.cmsDocId, archived.cmsDocId]) assert.ok(!String(header).includes(id), `${header} names ${id}`);
    }
    const other = await t.request('GET', `/api/v1/article/${alone._id}`, { key: null });
    const withoutDoc = (header: unknown) => String(header).split(' ').filter((tag) => !tag.startsWith('doc:')).sort();
    assert.deepEqual(withoutDoc(one.headers['surrogate-key']), withoutDoc(other.headers['surrogate-key']), 'hidden relationships change nothing but the document tag');
    // Publishing the author again purges a tag the answer carries: a CDN refreshes it, as this server does.
    assert.ok(String(one.headers['surrogate-key']).split(' ').includes('person:published'));
    assert.equal((await t.request('POST', `/api/v1/person/${unpublished._id.replace(/:published$/, ':draft')}/publish`)).status, 200);
    const again = await t.request('GET', `/api/v1/article/${article._id}`, { key: null });
    assert.deepEqual(again.body._authors.map((author: { title: string }) => author.title), ['Unpublished author'], 'shown once published again');
  });

  it('answers If-None-Match with 304 and no body, for every caller', async () => {
    for (const key of [null, 'guest', 'admin'] as Key[]) {
      const first = await t.request('GET', `/api/v1/article/${doc._id}`, { key });
      const etag = first.headers.etag as string;
      assert.match(etag, /^"[dp][0-9a-z]+\.[\w-]{27}"$/, 'a strong ETag naming the version, then the digest of the answer');
      const again = await t.request('GET', `/api/v1/article/${doc._id}`, { key, headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
      assert.equal(again.headers.etag, etag);
      const weak = await t.request('GET', `/api/v1/article/${doc._id}`, { key, headers: { 'if-none-match': `"other", W/${etag}` } });
      assert.equal(weak.status, 304, 'If-None-Match compares weakly');
      const stale = await t.request('GET', `/api/v1/article/${doc._id}`, { key, headers: { 'if-none-match': '"other"' } });
      assert.equal(stale.status, 200);
    }
  });

  it('says anonymous answers may be stored but revalidated; answers that depend on the caller are not stored', async () => {
    const anonymous = await t.request('GET', '/api/v1/article', { key: null });
    assert.equal(anonymous.headers['cache-control'], 'no-cache');
    assert.match(String(anonymous.headers.vary), /Authorization, Cookie/);
    const keyed = await t.request('GET', '/api/v1/article', { key: 'guest' });
    assert.equal(keyed.headers['cache-control'], 'no-store');
  });

  it('compresses large answers as the client accepts (br, gzip), with an ETag per coding; small ones never', async () => {
    const url = `/api/v1/article/${doc._id}`;
    const plain = await t.request('GET', url, { key: null });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.match(String(plain.headers.vary), /Accept-Encoding/);
    for (const [accept, coding, decode] of [
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['gzip;q=1, br;q=0', 'gzip', gunzipSync],
      ['*', 'gzip', gunzipSync],
    ] as const) {
      for (let i = 0; i < 2; i++) {
        const res = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': accept } });
        assert.equal(res.headers['content-encoding'], coding, accept);
        assert.equal(decode(res.rawPayload).toString('utf8'), plain.text);
        assert.equal(res.headers.etag, `${(plain.headers.etag as string).slice(0, -1)}-${coding === 'br' ? 'br' : 'gz'}"`);
        const revalidated = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': accept, 'if-none-match': res.headers.etag as string } });
        assert.equal(revalidated.statusCode, 304);
      }
    }
    const none = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'identity, br;q=0' } });
    assert.equal(none.headers['content-encoding'], undefined);
    const small = await t.app.inject({ method: 'GET', url: '/api/v1/person', headers: { 'accept-encoding': 'br' } });
    assert.equal(small.statusCode, 200);
    assert.equal(small.headers['content-encoding'], undefined, `${small.rawPayload.length} bytes are sent as they are`);
    assert.equal(small.headers.vary, 'Authorization, Cookie');
  });
});

/** `cacheConfig`, and people show the articles that relate to them (a reverse relationship). */
function reverseConfig(): Record<string, unknown> {
  const config = cacheConfig();
  const person = (config.modules as Record<string, any>).person;
  person.fields.add._articles = { type: 'relationshipReverse', withType: 'article', reverseOf: '_authors' };
  person.options.publicApiProjection._articles = 1;
  return config;
}

describe('response cache: a get-one depends on the documents it shows, a list on its types', () => {
  const counter = { finds: 0 };
  let t: TestApp;
  before(async () => {
    t = await startTestApp(reverseConfig(), {}, { wrapStorage: countFinds(counter) });
  });
  after(() => t.close());

  /** An anonymous read: its answer, and whether it read the store (false: served from the cache). */
  const read = async (url: string) => {
    const finds = counter.finds;
    const answer = await t.request('GET', url, { key: null });
    assert.equal(answer.status, 200, `${url}: ${answer.text}`);
    return { body: answer.body, text: answer.text, read: counter.finds > finds };
  };
  const post = async (url: string, body: unknown = {}) => {
    const res = await t.request('POST', url, { body });
    assert.equal(res.status, 200, `${url}: ${res.text}`);
    return res.body;
  };

  it("keeps article B's get-one while article A is patched or published; A's get-one and the list are read again", async () => {
    const a = await post('/api/v1/article', { title: 'Article A' });
    const b = await post('/api/v1/article', { title: 'Article B' });
    const [oneA, oneB, list] = [`/api/v1/article/${a._id}`, `/api/v1/article/${b._id}`, '/api/v1/article?perPage=50'];
    for (const url of [oneA, oneB, list]) await read(url);
    const kept = await read(oneB);
    assert.equal(kept.read, false, 'kept');
    assert.equal((await t.request('PATCH', oneA, { body: { title: 'Article A, patched' } })).status, 200);
    const afterPatch = await read(oneB);
    assert.equal(afterPatch.read, false, "a PATCH of A leaves B's answer kept: no store read");
    assert.equal(afterPatch.text, kept.text);
    const patched = await read(oneA);
    assert.equal(patched.read, true);
    assert.equal(patched.body.title, 'Article A, patched');
    assert.match((await read(list)).text, /Article A, patched/);
    const draftA = `/api/v1/article/${a.cmsDocId}:en:draft`;
    assert.equal((await t.request('PATCH', draftA, { body: { title: 'Article A, published' } })).status, 200);
    await post(`${draftA}/publish`);
    assert.equal((await read(oneB)).read, false, "publishing A leaves B's answer kept");
    assert.equal((await read(oneA)).body.title, 'Article A, published');
    const listed = await read(list);
    assert.equal(listed.read, true, 'the list is read again');
    assert.match(listed.text, /Article A, published/);
    assert.equal((await read(oneB)).read, false, 'B still kept after the others were read again');
  });

  it('reads an article again when a person it embeds changes, and only that article', async () => {
    const x = await post('/api/v1/person', { title: 'Person X' });
    const a = await post('/api/v1/article', { title: 'By X', _authors: [x._id] });
    const b = await post('/api/v1/article', { title: 'By nobody' });
    const [oneA, oneB] = [`/api/v1/article/${a._id}`, `/api/v1/article/${b._id}`];
    await read(oneA);
    await read(oneB);
    assert.equal((await t.request('PATCH', `/api/v1/person/${x._id}`, { body: { title: 'Person X, renamed' } })).status, 200);
    assert.equal((await read(oneB)).read, false, 'an article that does not show X stays kept');
    const again = await read(oneA);
    assert.equal(again.read, true);
    assert.equal(again.body._authors[0].title, 'Person X, renamed');
    await post(`/api/v1/person/${x._id}/unpublish`);
    assert.deepEqual((await read(oneA)).body._authors, [], 'unpublished: gone from the article');
    const draftX = `/api/v1/person/${x.cmsDocId}:en:draft`;
    await post(`${draftX}/publish`);
    const back = await read(oneA);
    assert.equal(back.read, true, 'published again (a version made anew): read again');
    assert.equal(back.body._authors[0].title, 'Person X, renamed');
  });

  it("reads a person again when a new article relates to them (reverse), and keeps another person's answer", async () => {
    const y = await post('/api/v1/person', { title: 'Person Y' });
    const z = await post('/api/v1/person', { title: 'Person Z' });
    const [oneY, oneZ] = [`/api/v1/person/${y._id}`, `/api/v1/person/${z._id}`];
    assert.deepEqual((await read(oneY)).body._articles, []);
    await read(oneZ);
    await post('/api/v1/article', { title: 'About Y', _authors: [y._id] });
    const again = await read(oneY);
    assert.equal(again.read, true, 'any new article could relate: the articles are a dependency');
    assert.deepEqual(again.body._articles.map((article: any) => article.title), ['About Y']);
    await post('/api/v1/note', { title: 'Unrelated' });
    assert.equal((await read(oneY)).read, false, 'a note leaves it');
    assert.equal((await t.request('PATCH', `/api/v1/person/${z._id}`, { body: { title: 'Person Z, renamed' } })).status, 200);
    assert.equal((await read(oneY)).read, false, "another person's write leaves it");
  });
});

describe('response cache: every write is seen by the next read, audiences never mix', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(cacheConfig());
  });
  after(() => t.close());

  /** Reads `url` twice as each caller (filling the cache), then returns the answers' texts. */
  async function readAll(url: string, callers: Key[] = [null, 'guest', 'editor']): Promise<Map<Key, string>> {
    const texts = new Map<Key, string>();
    for (const key of callers) {
      await t.request('GET', url, { key });
      const res = await t.request('GET', url, { key });
      texts.set(key, `${res.status} ${res.text}`);
    }
    return texts;
  }

  /** After `write`, each caller's next read of `url` answers as a fresh app would, and differs from before. */
  async function assertSeen(url: string, what: string, write: () => Promise<unknown>, callers?: Key[]): Promise<void> {
    const before = await readAll(url, callers);
    await write();
    const after = await readAll(url, callers);
    const changed = [...after].filter(([key, text]) => before.get(key) !== text);
    assert.ok(changed.length > 0, `${what}: some caller's answer to ${url} changed`);
  }

  const post = async (url: string, body: unknown = {}) => {
    const res = await t.request('POST', url, { body });
    assert.equal(res.status, 200, `${url}: ${res.text}`);
    return res.body;
  };

  it('insert, PUT, PATCH, publish, unpublish, archive, restore, localize, reverts, delete', async () => {
    let doc: Record<string, any> = {};
    await assertSeen('/api/v1/article', 'insert', async () => {
      doc = await post('/api/v1/article', { title: 'First' });
    });
    const one = () => `/api/v1/article/${doc._id}`;
    await assertSeen(one(), 'PUT', () => t.request('PUT', one(), { body: { title: 'Put' } }));
    await assertSeen(one(), 'PATCH', () => t.request('PATCH', one(), { body: { title: 'Patched' } }));
    const draft = `/api/v1/article/${doc.cmsDocId}:en:draft`;
    await assertSeen(draft, 'draft PATCH', () => t.request('PATCH', draft, { body: { title: 'Draft edit' } }), ['editor']);
    await assertSeen(one(), 'publish', () => post(`${draft}/publish`));
    await assertSeen('/api/v1/article', 'unpublish', () => post(`${one()}/unpublish`));
    await post(`${draft}/publish`);
    await assertSeen('/api/v1/article', 'archive', () => t.request('PATCH', one(), { body: { archived: true } }));
    await assertSeen('/api/v1/article?archived=any', 'restore', () => t.request('PATCH', one(), { body: { archived: false } }));
    await assertSeen('/api/v1/article?cmsLocale=es&cmsMode=draft', 'localize', () => post(`${draft}/localize`, { toLocale: 'es' }), ['editor']);
    await t.request('PATCH', draft, { body: { title: 'Unpublished change' } });
    await assertSeen(`${draft}`, 'revert draft to published', () => post(`${draft}/revert-draft-to-published`), ['editor']);
    await t.request('PATCH', draft, { body: { title: 'Second published' } });
    await post(`${draft}/publish`);
    await assertSeen(one(), 'revert published to previous', () => post(`${one()}/revert-published-to-previous`));
    await assertSeen(one(), 'delete', () => t.request('DELETE', one()));
    assert.equal((await t.request('GET', one(), { key: null })).status, 404);
  });

  it('sees a write to a related document of another type through the expanded relationship', async () => {
    const person = await post('/api/v1/person', { title: 'Ada' });
    const article = await post('/api/v1/article', { title: 'By Ada', _authors: [person._id] });
    const url = `/api/v1/article/${article._id}`;
    await assertSeen(url, 'a PATCH of the related person', () => t.request('PATCH', `/api/v1/person/${person._id}`, { body: { title: 'Ada Lovelace' } }));
    assert.equal((await t.request('GET', url, { key: null })).body._authors[0].title, 'Ada Lovelace');
    await assertSeen('/api/v1/article', 'unpublishing the related person', () => post(`/api/v1/person/${person._id}/unpublish`));
    assert.deepEqual((await t.request('GET', url, { key: null })).body._authors, []);
  });

  it('sees an upload used and an attachment cropped through the image piece that holds it', async () => {
    const file = await uploaded(t, 'square.png', await makeImage('png', 64, 64));
    const image = await post('/api/v1/@cms/image', { title: 'Square', attachment: { _id: file._id } });
    const url = `/api/v1/@cms/image/${image._id}`;
    const other = await uploaded(t, 'other.png', await makeImage('png', 32, 32));
    await assertSeen(url, 'another upload put in', () => t.request('PATCH', url, { body: { attachment: { _id: other._id } } }));
    const box = { top: 0, left: 0, width: 16, height: 16 };
    await assertSeen(url, 'a crop', () => post('/api/v1/@cms/attachment/crop', { _id: other._id, crop: box }));
    assert.deepEqual((await t.request('GET', url, { key: null })).body.attachment.crops, [box]);
  });

  it('gives each audience its own answer: anonymous, each role, each key', async () => {
    await post('/api/v1/article', { title: 'Members', visibility: 'loginRequired' });
    await post('/api/v1/article?cmsMode=draft', { title: 'Only a draft' });
    const titles = async (key: Key, query = '') =>
      ((await t.request('GET', `/api/v1/article?perPage=100${query}`, { key })).body.results ?? []).map((d: any) => d.title).sort();
    for (let round = 0; round < 2; round++) {
      assert.ok(!(await titles(null)).includes('Members'), 'anonymous callers never get the members-only answer');
      assert.ok((await titles('guest')).includes('Members'));
      assert.ok(!(await titles(null)).includes('Members'), 'not even right after a guest filled the cache');
      assert.ok((await titles('editor', '&cmsMode=draft')).includes('Only a draft'));
      assert.equal((await t.request('GET', '/api/v1/article?perPage=100&cmsMode=draft', { key: 'guest' })).status, 403);
      assert.equal((await t.request('GET', '/api/v1/article?perPage=100&cmsMode=draft', { key: null })).status, 403);
      const anonymous = await t.request('GET', '/api/v1/article?perPage=100', { key: null });
      const admin = await t.request('GET', '/api/v1/article?perPage=100', { key: 'admin' });
      assert.notEqual(anonymous.text, admin.text, 'the admin sees more properties');
      const byHeader = await t.app.inject({ method: 'GET', url: '/api/v1/article?perPage=100', headers: { authorization: `ApiKey ${keys.admin}` } });
      const byQuery = await t.app.inject({ method: 'GET', url: `/api/v1/article?perPage=100&apikey=${keys.admin}` });
      assert.equal(byQuery.body, byHeader.body, 'the key in the query string is the same audience');
    }
  });

  it('never serves a cached answer past a permission change: visibility, a user\'s role', async () => {
    const doc = await post('/api/v1/article', { title: 'Soon private' });
    const url = `/api/v1/article/${doc._id}`;
    assert.equal((await t.request('GET', url, { key: null })).status, 200);
    await t.request('PATCH', url, { body: { visibility: 'loginRequired' } });
    assert.equal((await t.request('GET', url, { key: null })).status, 404);
    const password = 'grace-password-123';
    const user = await post('/api/v1/@cms/user', { title: 'Grace', username: 'grace', password, role: 'guest' });
    const login = await t.request('POST', '/api/v1/@cms/login/login', { key: null, body: { username: 'grace', password } });
    const bearer = { authorization: `Bearer ${login.body.token}` };
    const drafts = () => t.app.inject({ method: 'GET', url: '/api/v1/article?cmsMode=draft', headers: bearer });
    assert.equal((await drafts()).statusCode, 403);
    await t.request('PATCH', `/api/v1/@cms/user/${user._id}`, { body: { role: 'editor' } });
    assert.equal((await drafts()).statusCode, 200, 'the new role holds at once');
    await t.request('PATCH', `/api/v1/@cms/user/${user._id}`, { body: { role: 'guest' } });
    assert.equal((await drafts()).statusCode, 403, 'and so does taking it back');
  });
});

describe('response cache: a write from another process on the same store', () => {
  const counter = { finds: 0 };
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    a = await startTestApp(cacheConfig(), {}, { wrapStorage: countFinds(counter) });
    b = await startTestApp(cacheConfig(), { CMS_DATABASE_URL: a.databaseUrl });
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  it('is seen by the next read in this one, directly and through a relationship', async () => {
    const person = (await a.request('POST', '/api/v1/person', { body: { title: 'Ada' } })).body;
    const article = (await a.request('POST', '/api/v1/article', { body: { title: 'By Ada', _authors: [person._id] } })).body;
    const list = () => a.request('GET', '/api/v1/article', { key: null });
    const one = () => a.request('GET', `/api/v1/article/${article._id}`, { key: null });
    for (const read of [list, one]) await read();
    assert.equal((await list()).body.results.length, 1);
    await b.request('POST', '/api/v1/article', { body: { title: 'From the other process' } });
    assert.equal((await list()).body.results.length, 2);
    assert.equal((await one()).body._authors[0].title, 'Ada');
    await b.request('PATCH', `/api/v1/person/${person._id}`, { body: { title: 'Ada Lovelace' } });
    assert.equal((await one()).body._authors[0].title, 'Ada Lovelace');
  });

  it("reads a document published by the other again, and keeps another document's answer without a store read", async () => {
    const first = (await a.request('POST', '/api/v1/article', { body: { title: 'First' } })).body;
    const second = (await a.request('POST', '/api/v1/article', { body: { title: 'Second' } })).body;
    const one = (doc: Record<string, any>) => a.request('GET', `/api/v1/article/${doc._id}`, { key: null });
    await one(first);
    await one(second);
    const draft = `/api/v1/article/${first.cmsDocId}:en:draft`;
    assert.equal((await b.request('PATCH', draft, { body: { title: 'First, from the other process' } })).status, 200);
    assert.equal((await b.request('POST', `${draft}/publish`)).status, 200);
    const finds = counter.finds;
    assert.equal((await one(second)).body.title, 'Second');
    assert.equal(counter.finds, finds, 'the other document is served from the cache');
    assert.equal((await one(first)).body.title, 'First, from the other process');
    assert.ok(counter.finds > finds);
  });
});

describe('response cache off (CMS_LIMIT_RESPONSE_CACHE_ENTRIES=0)', () => {
  const counter = { finds: 0 };
  let t: TestApp;
  before(async () => {
    t = await startTestApp(cacheConfig(), { CMS_LIMIT_RESPONSE_CACHE_ENTRIES: '0' }, { wrapStorage: countFinds(counter) });
    await t.request('POST', '/api/v1/article', { body: { title: 'Hello' } });
  });
  after(() => t.close());

  it('reads the store for every answer, still with an ETag and 304', async () => {
    const first = await t.request('GET', '/api/v1/article', { key: null });
    const finds = counter.finds;
    const again = await t.request('GET', '/api/v1/article', { key: null, headers: { 'if-none-match': first.headers.etag as string } });
    assert.equal(again.status, 304);
    assert.ok(counter.finds > finds);
  });
});
