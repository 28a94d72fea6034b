import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { loadAppConfig } from '../../src/load-app-config.js';

/** en, es → en, es-mx → es → en; articles fill an empty `category` from the chain. */
function fallbackConfig(): Record<string, unknown> {
  const config = testConfig() as { locales: unknown; modules: { article: { options: Record<string, unknown> } } };
  config.locales = { en: { label: 'English' }, es: { label: 'Español', fallback: 'en' }, 'es-mx': { label: 'Español (México)', fallback: 'es' } };
  config.modules.article.options.fallbackFields = ['category'];
  return config;
}

/** Issue 25, part 4: locale fallback chains. */
describe('locale fallback: published reads along the configured chain', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(fallbackConfig());
  });
  after(() => t.close());

  /** A published article in `en`, then published in each of `locales` with the given fields. */
  async function article(title: string, locales: Record<string, Record<string, unknown>> = {}, fields: Record<string, unknown> = {}) {
    const created = await t.request('POST', '/api/v1/article', { body: { title, category: 'base', ...fields } });
    assert.equal(created.status, 200, created.text);
    const docId = created.body.cmsDocId as string;
    for (const [locale, values] of Object.entries(locales)) await localized(docId, locale, values);
    return docId;
  }

  async function localized(docId: string, locale: string, values: Record<string, unknown>, publish = true) {
    const made = await t.request('POST', `/api/v1/article/${docId}:en:draft/localize`, { body: { toLocale: locale } });
    assert.equal(made.status, 200, made.text);
    const patched = await t.request('PATCH', `/api/v1/article/${docId}:${locale}:draft`, { body: values });
    assert.equal(patched.status, 200, patched.text);
    if (publish) assert.equal((await t.request('POST', `/api/v1/article/${docId}:${locale}:draft/publish`)).status, 200);
  }

  const anonymous = (url: string) => t.request('GET', url, { key: null });

  it('a GET in a locale without a version answers the first published version along the chain, marked _fallbackLocale', async () => {
    const onlyEn = await article('Only English');
    const withEs = await article('With Spanish', { es: { title: 'Con español' } });
    const own = await article('Own Mexican', { 'es-mx': { title: 'Propio' } });

    const fromEn = await anonymous(`/api/v1/article/${onlyEn}:es-mx:published`);
    assert.equal(fromEn.status, 200, fromEn.text);
    assert.equal(fromEn.body._id, `${onlyEn}:en:published`, 'the real version\'s id');
    assert.equal(fromEn.body._fallbackLocale, 'en');
    assert.equal(fromEn.body.title, 'Only English');
    // A bare id with cmsLocale, and the middle of the chain.
    const bare = await anonymous(`/api/v1/article/${onlyEn}?cmsLocale=es`);
    assert.equal(bare.body._fallbackLocale, 'en');
    const fromEs = await anonymous(`/api/v1/article/${withEs}:es-mx:published`);
    assert.equal(fromEs.body._id, `${withEs}:es:published`);
    assert.equal(fromEs.body._fallbackLocale, 'es');
    assert.equal(fromEs.body.title, 'Con español');
    // A version of its own: no mark.
    const mine = await anonymous(`/api/v1/article/${own}:es-mx:published`);
    assert.equal(mine.body._id, `${own}:es-mx:published`);
    assert.equal('_fallbackLocale' in mine.body, false);
    assert.equal('_fallbackLocale' in (await anonymous(`/api/v1/article/${onlyEn}:en:published`)).body, false);
    // A locale without a chain, and drafts, never fall back.
    const esOnly = await article('Spanish Root');
    assert.equal((await t.request('GET', `/api/v1/article/${onlyEn}:es-mx:draft`)).status, 404);
    assert.equal((await t.request('GET', `/api/v1/article/${esOnly}:es:draft`)).status, 404);
  });

  it('a kept answer follows the chain: once the asked locale gets its version, the GET answers it', async () => {
    const docId = await article('Cached Fallback');
    const url = `/api/v1/article/${docId}:es:published`;
    assert.equal((await anonymous(url)).body._fallbackLocale, 'en');
    assert.equal((await anonymous(url)).body._fallbackLocale, 'en');
    await localized(docId, 'es', { title: 'Ahora en español' });
    const now = await anonymous(url);
    assert.equal(now.body._id, `${docId}:es:published`);
    assert.equal(now.body.title, 'Ahora en español');
    assert.equal('_fallbackLocale' in now.body, false);
  });

  it('never shows a draft or an archived version: an unpublished locale falls back to the published one, an archived document reads nothing', async () => {
    const draftOnly = await article('Draft Only Mexican');
    await localized(draftOnly, 'es-mx', { title: 'Borrador secreto' }, false);
    const read = await anonymous(`/api/v1/article/${draftOnly}:es-mx:published`);
    assert.equal(read.body._id, `${draftOnly}:en:published`);
    assert.equal(JSON.stringify(read.body).includes('Borrador secreto'), false);
    const list = await anonymous('/api/v1/article?cmsLocale=es-mx&fallback=true&perPage=100');
    assert.equal(JSON.stringify(list.body).includes('Borrador secreto'), false);

    const archived = await article('Archived English');
    assert.equal((await t.request('PATCH', `/api/v1/article/${archived}:en:draft`, { body: { archived: true } })).status, 200);
    assert.equal((await anonymous(`/api/v1/article/${archived}:es-mx:published`)).status, 404);
    const after = await anonymous('/api/v1/article?cmsLocale=es-mx&fallback=true&perPage=100');
    assert.equal(after.body.results.some((doc: { title: string }) => doc.title === 'Archived English'), false);
    // Members-only versions stay hidden from anonymous callers along the chain too.
    const hidden = await article('Members Fallback', {}, { visibility: 'loginRequired' });
    assert.equal((await anonymous(`/api/v1/article/${hidden}:es:published`)).status, 404);
    assert.equal((await t.request('GET', `/api/v1/article/${hidden}:es:published`)).body._fallbackLocale, 'en');
  });

  it('writes never go to a fallback version: the answer names the real version, and the asked locale stays without one', async () => {
    const docId = await article('Write Target');
    const answer = await t.request('GET', `/api/v1/article/${docId}:es-mx:published`);
    assert.equal(answer.body._fallbackLocale, 'en');
    const draftOfAnswer = String(answer.body._id).replace(':published', ':draft');
    const patched = await t.request('PATCH', `/api/v1/article/${draftOfAnswer}`, { body: { title: 'Write Target (edited)' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body._id, `${docId}:en:draft`);
    // The locale asked for has no version, as before: a write to it is a 404.
    assert.equal((await t.request('PATCH', `/api/v1/article/${docId}:es-mx:draft`, { body: { title: 'x' } })).status, 404);
    assert.equal((await t.request('PATCH', `/api/v1/article/${docId}?cmsLocale=es-mx`, { body: { title: 'x' } })).status, 404);
    const locales = await t.request('GET', `/api/v1/article/${docId}/locales`);
    assert.deepEqual(locales.body.results.map((version: { cmsLocale: string }) => version.cmsLocale).sort(), ['en:draft', 'en:published']);
  });

  it('fills an empty fallbackFields field of a published version from the chain, listed in _fallbackFields; drafts stay as they are', async () => {
    const docId = await article('Field Fill', { es: { title: 'Relleno', category: '' } });
    const es = await anonymous(`/api/v1/article/${docId}:es:published`);
    assert.equal(es.body._id, `${docId}:es:published`);
    assert.equal(es.body.category, 'base');
    assert.deepEqual(es.body._fallbackFields, ['category']);
    assert.equal('_fallbackLocale' in es.body, false);
    const draft = await t.request('GET', `/api/v1/article/${docId}:es:draft`);
    assert.equal(draft.body.category ?? '', '');
    assert.equal('_fallbackFields' in draft.body, false);
    // A kept answer depends on the version it was filled from: a change there shows at once.
    assert.equal((await t.request('PATCH', `/api/v1/article/${docId}:en:draft`, { body: { category: 'changed' } })).status, 200);
    assert.equal((await t.request('POST', `/api/v1/article/${docId}:en:draft/publish`)).status, 200);
    assert.equal((await anonymous(`/api/v1/article/${docId}:es:published`)).body.category, 'changed');
    // A field the type does not name stays empty; a filled one is not marked.
    const own = await article('Own Category', { es: { title: 'Propia', category: 'propia' } });
    const ownRead = await anonymous(`/api/v1/article/${own}:es:published`);
    assert.equal(ownRead.body.category, 'propia');
    assert.equal('_fallbackFields' in ownRead.body, false);
    // In lists too, in one more query per page.
    const list = await anonymous('/api/v1/article?cmsLocale=es&perPage=100');
    const listed = list.body.results.find((doc: { _id: string }) => doc._id === `${docId}:es:published`);
    assert.equal(listed.category, 'changed');
    assert.deepEqual(listed._fallbackFields, ['category']);
  });
});

describe('locale fallback: lists with fallback=true, one version per document, paginated', () => {
  let t: TestApp;
  const expected = new Map<string, string>();
  before(async () => {
    t = await startTestApp(fallbackConfig());
    // Seven documents: three only in en, two in es too, two in es-mx too (one also in es).
    const plan: [string, string[]][] = [
      ['A', []], ['B', []], ['C', []], ['D', ['es']], ['E', ['es']], ['F', ['es-mx']], ['G', ['es', 'es-mx']],
    ];
    for (const [title, locales] of plan) {
      const created = await t.request('POST', '/api/v1/article', { body: { title, category: title === 'A' || title === 'F' ? 'pick' : 'other' } });
      const docId = created.body.cmsDocId as string;
      for (const locale of locales) {
        assert.equal((await t.request('POST', `/api/v1/article/${docId}:en:draft/localize`, { body: { toLocale: locale } })).status, 200);
        assert.equal((await t.request('PATCH', `/api/v1/article/${docId}:${locale}:draft`, { body: { title: `${title} ${locale}` } })).status, 200);
        assert.equal((await t.request('POST', `/api/v1/article/${docId}:${locale}:draft/publish`)).status, 200);
      }
      expected.set(docId, locales.includes('es-mx') ? 'es-mx' : locales.includes('es') ? 'es' : 'en');
    }
  });
  after(() => t.close());

  const localeOfId = (id: string) => id.split(':')[1];

  it('answers every document once, in its first locale along the chain, across pages in sort order', async () => {
    const seen: { _id: string; title: string; _fallbackLocale?: string }[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await t.request('GET', `/api/v1/article?cmsLocale=es-mx&fallback=true&perPage=3&page=${page}&sort[title]=1`, { key: null });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.pages, 3);
      assert.equal(res.body.currentPage, page);
      seen.push(...res.body.results);
    }
    assert.equal(seen.length, 7);
    assert.deepEqual(seen.map((doc) => doc.title), ['A', 'B', 'C', 'D es', 'E es', 'F es-mx', 'G es-mx']);
    for (const doc of seen) {
      const docId = doc._id.split(':')[0]!;
      assert.equal(localeOfId(doc._id), expected.get(docId), doc.title);
      assert.equal(doc._fallbackLocale, expected.get(docId) === 'es-mx' ? undefined : expected.get(docId));
    }
    assert.deepEqual((await t.request('GET', '/api/v1/article?cmsLocale=es-mx&fallback=true&count=1', { key: null })).body, { count: 7 });
  });

  it('without fallback the list holds the locale\'s own versions only; filters apply to the version the chain picks', async () => {
    const own = await t.request('GET', '/api/v1/article?cmsLocale=es-mx&sort[title]=1', { key: null });
    assert.deepEqual(own.body.results.map((doc: { title: string }) => doc.title), ['F es-mx', 'G es-mx']);
    const picked = await t.request('GET', '/api/v1/article?cmsLocale=es&fallback=true&category=pick&sort[title]=1', { key: null });
    assert.equal(picked.status, 200, picked.text);
    assert.deepEqual(picked.body.results.map((doc: { title: string; _fallbackLocale?: string }) => [doc.title, doc._fallbackLocale]), [['A', 'en'], ['F', 'en']]);
    // `project` keeps the mark whatever it names.
    const projected = await t.request('GET', '/api/v1/article?cmsLocale=es&fallback=true&category=pick&project[title]=1&sort[title]=1', { key: null });
    assert.deepEqual(projected.body.results.map((doc: { _fallbackLocale?: string }) => doc._fallbackLocale), ['en', 'en']);
    // A bad value is a 400.
    assert.equal((await t.request('GET', '/api/v1/article?fallback=maybe', { key: null })).status, 400);
  });

  it('lists drafts along the chain for editors, so the admin can mark what is missing in a locale', async () => {
    const res = await t.request('GET', '/api/v1/article?cmsLocale=es&cmsMode=draft&fallback=true&perPage=100&sort[title]=1');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.results.map((doc: { title: string; _fallbackLocale?: string }) => [doc.title, doc._fallbackLocale ?? null]),
      [['A', 'en'], ['B', 'en'], ['C', 'en'], ['D es', null], ['E es', null], ['F', 'en'], ['G es', null]],
    );
  });
  it('counts and choices count each document once, by the version the chain picks', async () => {
    const listed = await t.request('GET', '/api/v1/article?cmsLocale=es&cmsMode=draft&fallback=true&perPage=100');
    const d = listed.body.results.find((doc: { title: string }) => doc.title === 'D es');
    // D's es draft leaves the category its en version keeps: that one must count no more.
    assert.equal((await t.request('PATCH', `/api/v1/article/${d._id}`, { body: { category: 'translated' } })).status, 200);
    const res = await t.request('GET', '/api/v1/article?cmsLocale=es&cmsMode=draft&fallback=true&perPage=100&counts=category&choices=category');
    assert.equal(res.status, 200, res.text);
    const byValue = new Map<string, number>();
    for (const doc of res.body.results as { category: string }[]) byValue.set(doc.category, (byValue.get(doc.category) ?? 0) + 1);
    assert.deepEqual(Object.fromEntries(byValue), { pick: 2, other: 4, translated: 1 });
    const counted = res.body.counts.category as { value: string; count: number }[];
    assert.deepEqual(Object.fromEntries(counted.map(({ value, count }) => [value, count])), Object.fromEntries(byValue));
    assert.deepEqual(res.body.choices.category.map((choice: { value: string }) => choice.value).sort(), [...byValue.keys()].sort());
    assert.equal(res.body.pages, 1);
    assert.deepEqual((await t.request('GET', '/api/v1/article?cmsLocale=es&cmsMode=draft&fallback=true&count=1')).body, { count: 7 });
  });
});

describe('locale fallback: configuration', () => {
  const load = (locales: Record<string, unknown>) => loadAppConfig({ config: { ...testConfig(), locales }, env: { CMS_LOG_LEVEL: 'silent' }, cwd: '/tmp' });

  it('refuses a fallback that names no locale, or a circle, naming the locale', async () => {
    await assert.rejects(load({ en: {}, es: { fallback: 'fr' } }), /locales\.es\.fallback.*"fr" is not one of the locales/s);
    await assert.rejects(load({ en: { fallback: 'es' }, es: { fallback: 'en' } }), /go round in a circle: en → es → en/);
    await assert.rejects(load({ en: { fallback: 'en' } }), /circle/);
    await assert.rejects(load({ en: {}, es: { fallback: 3 } }), /fallback/);
  });

  it('refuses a fallbackFields entry that names no field', async () => {
    const config = fallbackConfig() as { modules: { article: { options: Record<string, unknown> } } };
    config.modules.article.options.fallbackFields = ['nope'];
    await assert.rejects(loadAppConfig({ config, env: { CMS_LOG_LEVEL: 'silent' }, cwd: '/tmp' }), /fallbackFields.*"nope"/s);
  });
});
