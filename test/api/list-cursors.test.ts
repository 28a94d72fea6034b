import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, testConfig, type TestApp, type TestResponse } from '../helpers/test-app.js';
import { countFinds } from '../helpers/find-counter.js';

// Lists walked by `?cursor=` on a real store (SQLite, or PostgreSQL with CMS_TEST_API_DATABASE):
// the walk answers the same documents in the same order as the page numbers do, for every sort
// the list accepts, holds under inserts and deletes between pages, and refuses any cursor but
// the one its list gave.

type Key = 'admin' | null;

/** `article` lists by its hidden `priority` (missing in some, tied in most); `memo` is walked while it changes. */
function cursorConfig(): Record<string, unknown> {
  const config = testConfig();
  const modules = config.modules as Record<string, any>;
  config.locales = { en: { label: 'English' }, es: { label: 'Español', fallback: 'en' } };
  modules.article.options.sort = { priority: -1 };
  modules.memo = { extend: '@cms/piece-type', options: { label: 'Memo', publicApiProjection: { title: 1, slug: 1 } }, fields: { add: { text: { type: 'string' } } } };
  return config;
}

const articleCount = 250;
const perPage = 20;

/** The n-th article: every third has `alpha` in its title, every fourth in its category, so that ranks differ. */
function article(n: number): Record<string, unknown> {
  return {
    title: `Doc ${String(n).padStart(3, '0')}${n % 3 === 0 ? ' alpha' : ''}`,
    category: n % 4 === 0 ? 'alpha alpha' : 'beta',
    ...(n % 6 === 0 ? {} : { priority: n % 5 }),
  };
}

function assertRefused(res: TestResponse, what: string): void {
  assert.equal(res.status, 400, `${what}: ${res.text}`);
  assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'name'], what);
  assert.equal(res.body.data.parameter, 'cursor', what);
}

/** What a cursor's text holds: [version, list digest, page, shown sort values, last _id]. */
function cursorContent(cursor: string): unknown[] {
  return JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8'));
}

describe('list cursors', () => {
  let t: TestApp;
  const counter = { finds: 0 };

  before(async () => {
    // Every save its own history entry, for a history of many pages.
    t = await startTestApp(cursorConfig(), { CMS_LIMIT_HISTORY_MERGE_SECONDS: '0' }, { wrapStorage: countFinds(counter) });
    for (let n = 0; n < articleCount; n++) {
      const res = await t.request('POST', '/api/v1/article', { body: article(n) });
      assert.equal(res.status, 200, res.text);
      // Every tenth in Spanish too, titled and ranked otherwise: a fallback list mixes both locales.
      if (n % 10 === 0) await localized(res.body.cmsDocId, { title: `Es ${n}`, priority: 4 - (n % 5) });
    }
  });
  after(() => t.close());

  async function localized(docId: string, values: Record<string, unknown>): Promise<void> {
    assert.equal((await t.request('POST', `/api/v1/article/${docId}:en:draft/localize`, { body: { toLocale: 'es' } })).status, 200);
    assert.equal((await t.request('PATCH', `/api/v1/article/${docId}:es:draft`, { body: values })).status, 200);
    assert.equal((await t.request('POST', `/api/v1/article/${docId}:es:draft/publish`)).status, 200);
  }

  // Documents and history entries have an `_id`, audit records an `id`.
  const ids = (res: TestResponse): string[] => res.body.results.map((item: { _id?: string; id?: string }) => item._id ?? item.id);

  /** Every page of a type's list by cursor; `between` runs after each page but the last, given its answer. */
  function walk(type: string, query: string, key: Key = 'admin', between?: (res: TestResponse) => Promise<void>) {
    return walkList(`/api/v1/${type}`, query, key, between);
  }

  /** Every page of the list at `path` by cursor, as `walk`. */
  async function walkList(path: string, query: string, key: Key = 'admin', between?: (res: TestResponse) => Promise<void>) {
    const seen: string[] = [];
    const cursors: string[] = [];
    let url = `${path}?perPage=${perPage}${query}`;
    for (let page = 1; page <= 100; page++) {
      const res = await t.request('GET', url, { key });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.currentPage, page);
      seen.push(...ids(res));
      if (res.body.nextCursor === null) return { seen, cursors };
      assert.equal(res.body.results.length, perPage, 'a page before the last is full');
      cursors.push(res.body.nextCursor);
      await between?.(res);
      url = `${path}?perPage=${perPage}${query}&cursor=${encodeURIComponent(res.body.nextCursor)}`;
    }
    throw new Error('the walk did not end');
  }

  /** The whole list of a type (or the list at a path) in its order, by page numbers. */
  async function whole(type: string, query: string, key: Key = 'admin'): Promise<string[]> {
    const all: string[] = [];
    const path = type.startsWith('/') ? type : `/api/v1/${type}`;
    for (let page = 1; ; page++) {
      const res = await t.request('GET', `${path}?perPage=100&page=${page}${query}`, { key });
      assert.equal(res.status, 200, res.text);
      all.push(...ids(res));
      if (page >= res.body.pages) return all;
    }
  }

  const sorts = [
    { name: 'the type\'s own sort (a property, with ties and missing values)', query: '' },
    { name: 'title', query: '&sort[title]=1' },
    { name: 'updatedAt descending', query: '&sort[updatedAt]=-1' },
    { name: 'a property ascending, with ties and missing values', query: '&sort[priority]=1' },
    { name: 'two keys of opposite directions', query: '&sort[category]=1&sort[title]=-1' },
    { name: 'a search by relevance', query: '&search=alpha' },
    { name: 'a search by relevance, filtered', query: '&search=alpha&category=beta' },
    { name: 'an autocomplete by relevance', query: '&autocomplete=alp' },
    { name: 'a search sorted by title', query: '&search=alpha&sort[title]=-1' },
    { name: 'a locale\'s fallback chain (one version per document, of either locale)', query: '&cmsLocale=es&fallback=true' },
    { name: 'a locale\'s fallback chain by title', query: '&cmsLocale=es&fallback=true&sort[title]=1' },
  ];

  for (const { name, query } of sorts) {
    it(`walks ${name} as the page numbers list it`, async () => {
      const expected = await whole('article', query);
      assert.ok(expected.length > perPage, 'more than one page');
      if (query.includes('fallback')) assert.ok(expected.some((id) => id.endsWith(':es:published')) && expected.some((id) => id.endsWith(':en:published')));
      const { seen } = await walk('article', query);
      assert.deepEqual(seen, expected);
    });
  }

  it('answers pages and nextCursor along the walk as along the page numbers', async () => {
    const first = await t.request('GET', `/api/v1/article?perPage=${perPage}`);
    assert.equal(first.body.pages, Math.ceil(articleCount / perPage));
    const second = await t.request('GET', `/api/v1/article?perPage=${perPage}&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    const numbered = await t.request('GET', `/api/v1/article?perPage=${perPage}&page=2`);
    assert.deepEqual(ids(second), ids(numbered));
    assert.equal(second.body.pages, numbered.body.pages);
    assert.equal(second.body.currentPage, 2);
    // A numbered page gives the cursor of its next page too; the last gives null.
    const fromNumbered = await t.request('GET', `/api/v1/article?perPage=${perPage}&cursor=${encodeURIComponent(numbered.body.nextCursor)}`);
    assert.deepEqual(ids(fromNumbered), ids(await t.request('GET', `/api/v1/article?perPage=${perPage}&page=3`)));
    const last = await t.request('GET', `/api/v1/article?perPage=${perPage}&page=${first.body.pages}`);
    assert.equal(last.body.nextCursor, null);
    assert.equal((await t.request('GET', '/api/v1/article?_ids[]=a&_ids[]=b')).body.nextCursor, null);
  });

  it('gives an anonymous caller cursors without the values of a field it does not see', async () => {
    const expected = await whole('article', '', null);
    const { seen, cursors } = await walk('article', '', null);
    assert.deepEqual(seen, expected);
    assert.ok(cursors.length > 2);
    for (const cursor of cursors) {
      const [, , , shown] = cursorContent(cursor);
      assert.deepEqual(shown, [], 'no priority value reaches the caller');
    }
    // Nor may it sort on the field to read its values.
    assert.equal((await t.request('GET', '/api/v1/article?sort[priority]=1', { key: null })).status, 400);
    // The values of a field it sees are carried.
    const byTitle = await t.request('GET', `/api/v1/article?perPage=${perPage}&sort[title]=1`, { key: null });
    const [, , , shownTitles] = cursorContent(byTitle.body.nextCursor);
    assert.equal((shownTitles as string[]).length, 1);
  });

  it('refuses a cursor whose document is gone when the page needs it (hidden values, a rank), saying to start again', async () => {
    const first = await t.request('GET', `/api/v1/article?perPage=${perPage}`, { key: null });
    const last = first.body.results.at(-1)._id as string;
    assert.equal((await t.request('DELETE', `/api/v1/article/${last}`)).status, 200);
    const res = await t.request('GET', `/api/v1/article?perPage=${perPage}&cursor=${encodeURIComponent(first.body.nextCursor)}`, { key: null });
    assertRefused(res, 'the bound document is gone');
    assert.match(res.body.message, /first page again/);
    // A search by relevance ranks the cursor's document anew: gone, it is refused as well.
    const ranked = await t.request('GET', `/api/v1/article?perPage=${perPage}&search=alpha`);
    assert.equal((await t.request('DELETE', `/api/v1/article/${ranked.body.results.at(-1)._id}`)).status, 200);
    const after = await t.request('GET', `/api/v1/article?perPage=${perPage}&search=alpha&cursor=${encodeURIComponent(ranked.body.nextCursor)}`);
    assertRefused(after, 'the ranked bound document is gone');
  });

  it('refuses, in the error shape, a cursor that is not this list\'s', async () => {
    const query = `/api/v1/article?perPage=${perPage}&sort[title]=1`;
    const cursor: string = (await t.request('GET', query)).body.nextCursor;
    const [body, checksum] = cursor.split('.') as [string, string];
    const flipped = `${body.slice(0, 10)}${body[10] === 'A' ? 'B' : 'A'}${body.slice(11)}.${checksum}`;
    const forged = (content: unknown[]) => {
      const text = Buffer.from(JSON.stringify(content)).toString('base64url');
      return `${text}.${checksum}`;
    };
    const content = cursorContent(cursor);
    const cases: [string, string][] = [
      ['garbage', `${query}&cursor=garbage`],
      ['empty', `${query}&cursor=`],
      ['tampered', `${query}&cursor=${encodeURIComponent(flipped)}`],
      ['forged without its checksum', `${query}&cursor=${encodeURIComponent(forged([...content.slice(0, 3), ['zzz'], content[4]]))}`],
      ['another type\'s list', `/api/v1/memo?perPage=${perPage}&sort[title]=1&cursor=${encodeURIComponent(cursor)}`],
      ['another sort', `/api/v1/article?perPage=${perPage}&sort[title]=-1&cursor=${encodeURIComponent(cursor)}`],
      ['the default sort', `/api/v1/article?perPage=${perPage}&cursor=${encodeURIComponent(cursor)}`],
      ['another filter', `${query}&category=beta&cursor=${encodeURIComponent(cursor)}`],
      ['a search added', `${query}&search=alpha&cursor=${encodeURIComponent(cursor)}`],
      ['another mode', `${query}&cmsMode=draft&cursor=${encodeURIComponent(cursor)}`],
      ['another locale', `${query}&cmsLocale=es&cursor=${encodeURIComponent(cursor)}`],
      ['another caller', `${query}&cursor=${encodeURIComponent(cursor)}`],
      ['huge', `${query}&cursor=${'a'.repeat(5000)}.${checksum}`],
      ['with page', `${query}&page=2&cursor=${encodeURIComponent(cursor)}`],
      ['with _ids', `${query}&_ids[]=a&cursor=${encodeURIComponent(cursor)}`],
      ['twice', `${query}&cursor=${encodeURIComponent(cursor)}&cursor=${encodeURIComponent(cursor)}`],
    ];
    for (const [what, url] of cases) {
      const key = what === 'another caller' ? null : 'admin';
      assertRefused(await t.request('GET', url, { key }), what);
    }
  });

  it('keeps a cursor page cacheable, and answers it again after a write', async () => {
    const first = await t.request('GET', `/api/v1/article?perPage=${perPage}&sort[title]=1`, { key: null });
    const url = `/api/v1/article?perPage=${perPage}&sort[title]=1&cursor=${encodeURIComponent(first.body.nextCursor)}`;
    const a = await t.request('GET', url, { key: null });
    const finds = counter.finds;
    const b = await t.request('GET', url, { key: null });
    assert.equal(counter.finds, finds, 'the second answer is the cache\'s: no read');
    assert.equal(b.text, a.text);
    assert.equal(b.headers.etag, a.headers.etag);
    const gone = a.body.results[3]._id as string;
    assert.equal((await t.request('DELETE', `/api/v1/article/${gone}`)).status, 200);
    const c = await t.request('GET', url, { key: null });
    assert.ok(counter.finds > finds, 'the write let the cached answer go');
    assert.notEqual(c.headers.etag, a.headers.etag);
    assert.ok(!ids(c).includes(gone), 'the deleted document is no longer answered');
    assert.deepEqual(ids(c).slice(0, 3), ids(a).slice(0, 3));
  });

  for (const { name, query } of [
    { name: 'title', query: '&sort[title]=1' },
    { name: 'updatedAt descending', query: '&sort[updatedAt]=-1' },
    { name: 'the type\'s own sort', query: '' },
  ]) {
    it(`holds a walk by ${name} under inserts and deletes between pages`, async () => {
      const memo = async (title: string): Promise<string> => {
        const res = await t.request('POST', '/api/v1/memo', { body: { title } });
        assert.equal(res.status, 200, res.text);
        return res.body._id;
      };
      const original: string[] = [];
      for (let n = 0; n < 70; n++) original.push(await memo(`${name} m${String(n).padStart(3, '0')}`));
      const deleted = new Set<string>();
      const insertedAfter: string[] = [];
      let seenSoFar: string[] = [];
      const { seen } = await walk('memo', `&search=${encodeURIComponent(`"${name}"`)}${query}`, 'admin', async (res) => {
        seenSoFar = [...seenSoFar, ...ids(res)];
        const remaining = original.filter((id) => !seenSoFar.includes(id) && !deleted.has(id));
        // One already read and one still to come, deleted; one placed right after the page's last.
        for (const id of [seenSoFar[seenSoFar.length - 2], remaining.at(-1)].filter((id) => id !== undefined)) {
          assert.equal((await t.request('DELETE', `/api/v1/memo/${id}`)).status, 200);
          deleted.add(id);
        }
        const last = res.body.results.at(-1).title as string;
        if (query === '&sort[title]=1') insertedAfter.push(await memo(`${last}a`));
        await memo(`${name} a new one`);
      });
      assert.ok(deleted.size >= 4 && (query !== '&sort[title]=1' || insertedAfter.length >= 2), 'the list changed between pages');
      assert.equal(new Set(seen).size, seen.length, 'no document twice');
      for (const id of original) assert.equal(seen.includes(id), !deleted.has(id) || seenSoFar.includes(id), `${id}`);
      for (const id of insertedAfter) assert.ok(seen.includes(id), `${id}, inserted after the bound, is read`);
      for (const id of original) if (!seen.includes(id)) assert.ok(deleted.has(id));
    });
  }
  it('walks the audit trail by cursor as its page numbers list it, records appended meanwhile read no twice', async () => {
    const audit = '/api/v1/@cms/audit';
    const query = '&action=document.insert';
    const expected = await whole(audit, query);
    assert.ok(expected.length > 5 * perPage);
    assert.deepEqual((await walkList(audit, query)).seen, expected);
    const { seen } = await walkList(audit, query, 'admin', async () => {
      assert.equal((await t.request('POST', '/api/v1/memo', { body: { title: 'appended between pages' } })).status, 200);
    });
    // The new records are newer than the walk's place: none is read, and no earlier one twice.
    assert.deepEqual(seen, expected);
    const first = await t.request('GET', `${audit}?perPage=${perPage}${query}`);
    for (const [what, url] of [
      ['another filter', `${audit}?perPage=${perPage}&action=document.update&cursor=${encodeURIComponent(first.body.nextCursor)}`],
      ['with page', `${audit}?perPage=${perPage}${query}&page=2&cursor=${encodeURIComponent(first.body.nextCursor)}`],
      ['garbage', `${audit}?perPage=${perPage}${query}&cursor=%00%ff`],
    ] as const) {
      assertRefused(await t.request('GET', url), what);
    }
  });

  it('walks a document\'s history by cursor as its page numbers list it, and refuses another document\'s cursor', async () => {
    const doc = (await t.request('POST', '/api/v1/memo', { body: { title: 'with a long history' } })).body;
    const other = (await t.request('POST', '/api/v1/memo', { body: { title: 'with a short history' } })).body;
    const save = async (n: number) => {
      const res = await t.request('PATCH', `/api/v1/memo/${doc.cmsDocId}:en:draft`, { body: { text: `save ${n}` } });
      assert.equal(res.status, 200, res.text);
    };
    for (let n = 0; n < 45; n++) await save(n);
    const path = `/api/v1/memo/${doc.cmsDocId}:en:draft/history`;
    const expected = await whole(path, '');
    assert.ok(expected.length > 2 * perPage);
    let saves = 100;
    const { seen, cursors } = await walkList(path, '', 'admin', () => save(saves++));
    assert.deepEqual(seen, expected, 'the saves between pages are newer than the walk\'s place');
    const elsewhere = await t.request('GET', `/api/v1/memo/${other.cmsDocId}:en:draft/history?perPage=${perPage}&cursor=${encodeURIComponent(cursors[0]!)}`);
    assertRefused(elsewhere, 'another document\'s history');
  });
});
