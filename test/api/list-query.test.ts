import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, keys, type TestApp } from '../helpers/test-app.js';

/** `product`: one field of every filterable kind, a public projection that hides `secret` and `priority`. */
function listConfig(): Record<string, unknown> {
  return {
    baseUrl: 'http://shop.test',
    locales: { en: { label: 'English' }, fr: { label: 'Français' } },
    apiKeys: { [keys.admin]: { role: 'admin' } },
    modules: {
      product: {
        extend: '@cms/piece-type',
        options: {
          label: 'Product',
          pagePath: '/products',
          publicApiProjection: { title: 1, slug: 1, category: 1, color: 1, tags: 1, featured: 1, releasedOn: 1, body: 1, _url: 1 },
        },
        fields: {
          add: {
            category: { type: 'string' },
            secret: { type: 'string' },
            priority: { type: 'integer' },
            price: { type: 'float' },
            featured: { type: 'boolean' },
            releasedOn: { type: 'date' },
            color: { type: 'select', choices: [{ label: 'Red', value: 'red' }, { label: 'Blue', value: 'blue' }, { label: 'Green', value: 'green' }] },
            tags: { type: 'checkboxes', choices: [{ label: 'New', value: 'new' }, { label: 'Sale', value: 'sale' }] },
            body: { type: 'area', options: { widgets: { '@cms/rich-text': {} } } },
          },
        },
      },
    },
  };
}

interface Seed {
  title: string;
  category?: string;
  secret?: string;
  priority?: number;
  price?: number;
  featured?: boolean;
  releasedOn?: string;
  color?: string;
  tags?: string[];
  body?: string;
}

const seeds: Seed[] = [
  { title: 'Running Shoes', category: 'Footwear', secret: 'zanzibar', priority: 1, price: 59.5, featured: true, releasedOn: '2024-01-10', color: 'red', tags: ['new'], body: 'Light shoes for the track' },
  { title: 'Hiking Boots', category: 'Footwear', priority: 5, price: 120, featured: false, releasedOn: '2024-03-01', color: 'blue', tags: ['sale'], body: 'Boots for people who run up mountains' },
  { title: 'Rain Jacket', category: 'Outerwear', priority: 7, price: 80, featured: true, releasedOn: '2024-06-30', color: 'blue', tags: ['new', 'sale'], body: 'Keeps the rain out' },
  { title: 'Wool Socks', category: 'Accessories', priority: 3, price: 9.99, featured: false, releasedOn: '2023-12-24', color: 'green', tags: [], body: 'Warm and soft' },
  { title: '#10 Special', category: '100% Cotton_Tee', priority: 10, color: 'red' },
  { title: '#2 Special', category: 'Misc', priority: 2 },
];

const titles = (body: { results: { title: string }[] }) => body.results.map((doc) => doc.title);
const sorted = (list: string[]) => [...list].sort();

describe('list query surface', () => {
  let t: TestApp;
  const ids = new Map<string, string>();

  before(async () => {
    t = await startTestApp(listConfig());
    for (const seed of seeds) {
      const res = await t.request('POST', '/api/v1/product', { body: { ...seed, body: seed.body ?? '' } });
      assert.equal(res.status, 200, res.text);
      ids.set(seed.title, res.body.cmsDocId);
    }
  });
  after(() => t.close());

  const list = async (query: string, key: 'admin' | null = 'admin') => {
    const res = await t.request('GET', `/api/v1/product?perPage=100&${query}`, { key });
    return res;
  };

  describe('field filters', () => {
    it('matches a string as a case-insensitive substring, wildcards taken literally', async () => {
      assert.deepEqual(sorted(titles((await list('category=footwear')).body)), ['Hiking Boots', 'Running Shoes']);
      assert.deepEqual(titles((await list('category=0%25%20cotton_')).body), ['#10 Special']);
      assert.deepEqual(titles((await list('category=%25')).body), ['#10 Special']);
      assert.deepEqual(titles((await list('title=RAIN')).body), ['Rain Jacket']);
    });

    it('filters a select by one or several choices and refuses a value that is no choice', async () => {
      assert.deepEqual(sorted(titles((await list('color=red')).body)), ['#10 Special', 'Running Shoes']);
      assert.deepEqual(sorted(titles((await list('color[]=green&color[]=red')).body)), ['#10 Special', 'Running Shoes', 'Wool Socks']);
      const bad = await list('color=purple');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.name, 'invalid');
      assert.equal(bad.body.data.errors[0].path, 'color');
    });

    it('filters checkboxes by any of the values', async () => {
      assert.deepEqual(sorted(titles((await list('tags=sale')).body)), ['Hiking Boots', 'Rain Jacket']);
      assert.deepEqual(sorted(titles((await list('tags[]=new&tags[]=sale')).body)), ['Hiking Boots', 'Rain Jacket', 'Running Shoes']);
    });

    it('filters integers and floats by exact value and by inclusive ranges with open bounds', async () => {
      assert.deepEqual(titles((await list('priority=5')).body), ['Hiking Boots']);
      assert.deepEqual(sorted(titles((await list('priority[]=3&priority[]=7')).body)), ['Hiking Boots', 'Rain Jacket', 'Wool Socks']);
      assert.deepEqual(sorted(titles((await list('priority[]=&priority[]=2')).body)), ['#2 Special', 'Running Shoes']);
      assert.deepEqual(sorted(titles((await list('priority[min]=7')).body)), ['#10 Special', 'Rain Jacket']);
      assert.deepEqual(sorted(titles((await list('price[]=50&price[]=100')).body)), ['Rain Jacket', 'Running Shoes']);
      for (const bad of ['priority=abc', 'priority[]=1&priority[]=2&priority[]=3', 'priority=1.5', 'priority[low]=1']) {
        const res = await list(bad);
        assert.equal(res.status, 400, bad);
        assert.equal(res.body.data.errors[0].path, 'priority');
      }
    });

    it('filters booleans, with any meaning no filter', async () => {
      assert.deepEqual(sorted(titles((await list('featured=true')).body)), ['Rain Jacket', 'Running Shoes']);
      assert.deepEqual(sorted(titles((await list('featured=0')).body)), ['Hiking Boots', 'Wool Socks']);
      assert.equal((await list('featured=any')).body.results.length, seeds.length);
      assert.equal((await list('featured=maybe')).status, 400);
    });

    it('filters dates by day and by range', async () => {
      assert.deepEqual(titles((await list('releasedOn=2024-03-01')).body), ['Hiking Boots']);
      assert.deepEqual(sorted(titles((await list('releasedOn[]=2024-01-01&releasedOn[]=2024-06-30')).body)), ['Hiking Boots', 'Rain Jacket', 'Running Shoes']);
      assert.equal((await list('releasedOn=2024-02-30')).status, 400);
    });

    it('combines filters and ignores parameters that name no filter', async () => {
      assert.deepEqual(titles((await list('category=footwear&color=blue&_edit=1&cacheBust=3')).body), ['Hiking Boots']);
    });
  });

  describe('sort', () => {
    it('sorts titles by their sortified form, and any scalar field either way', async () => {
      const byTitle = titles((await list('sort[title]=1')).body);
      assert.deepEqual(byTitle.slice(0, 2), ['#10 Special', '#2 Special']);
      assert.deepEqual(titles((await list('sort[priority]=-1')).body).slice(0, 3), ['#10 Special', 'Rain Jacket', 'Hiking Boots']);
    });

    it('defaults to the newest update first', async () => {
      assert.deepEqual(titles((await list('')).body), [...seeds].reverse().map((seed) => seed.title));
    });

    it('refuses an unknown field or a direction other than 1 and -1', async () => {
      assert.equal((await list('sort[nothing]=1')).status, 400);
      assert.equal((await list('sort[title]=2')).status, 400);
      assert.equal((await list('sort=title')).status, 400);
    });
  });

  describe('search and autocomplete', () => {
    it('finds stemmed words, ranks a title match above a body match', async () => {
      const res = await list('search=running');
      assert.equal(res.status, 200);
      assert.deepEqual(titles(res.body), ['Running Shoes', 'Hiking Boots']);
    });

    it('requires quoted phrases and excludes minus words', async () => {
      assert.deepEqual(titles((await list('search=%22rain%20keeps%22')).body), []);
      assert.deepEqual(titles((await list('search=%22the%20rain%20out%22')).body), ['Rain Jacket']);
      assert.deepEqual(titles((await list('search=boots%20shoes%20-mountains')).body), ['Running Shoes']);
    });

    it('searches within a filtered list, and sort=search keeps relevance order', async () => {
      assert.deepEqual(titles((await list('search=run&color=blue')).body), ['Hiking Boots']);
      assert.deepEqual(titles((await list('search=running&sort=search')).body), ['Running Shoes', 'Hiking Boots']);
    });

    it('completes words by their beginning, every word required', async () => {
      assert.deepEqual(titles((await list('autocomplete=hik')).body), ['Hiking Boots']);
      assert.deepEqual(titles((await list('autocomplete=wo%20so')).body), ['Wool Socks']);
      assert.deepEqual(titles((await list('autocomplete=wo%20sh')).body), []);
    });

    it('treats search syntax characters as plain text', async () => {
      for (const text of ['"', 'NEAR(a b)', '*', 'title:rain', 'a OR', '(', '^x', '-', 'a\u0000b', '"rain\u0000', '\u0007']) {
        const res = await list(`search=${encodeURIComponent(text)}`);
        assert.equal(res.status, 200, `${JSON.stringify(text)}: ${res.text}`);
        const completed = await list(`autocomplete=${encodeURIComponent(text)}`);
        assert.equal(completed.status, 200, `${JSON.stringify(text)}: ${completed.text}`);
      }
      assert.deepEqual(titles((await list(`search=${encodeURIComponent('rain\u0000jacket')}`)).body), ['Rain Jacket'],
        'control characters separate words');
    });
  });

  describe('project, _ids, archived, count, pages', () => {
    it('projects to the named properties plus _id, type and metaType, or excludes them', async () => {
      const res = await list('project[title]=1&project[_url]=1');
      assert.deepEqual(Object.keys(res.body.results[0]).sort(), ['_id', '_parentSlug', '_parentUrl', '_url', 'metaType', 'title', 'type']);
      const excluded = await list('project[body]=0');
      assert.equal('body' in excluded.body.results[0], false);
      assert.equal('title' in excluded.body.results[0], true);
      assert.equal((await list('project[title]=1&project[body]=0')).status, 400);
    });

    it('returns _ids in the order given, bare or full ids, and nothing for a single value', async () => {
      const wanted = [ids.get('Wool Socks')!, `${ids.get('Running Shoes')!}:en:published`, ids.get('Rain Jacket')!];
      const res = await list(wanted.map((id) => `_ids[]=${encodeURIComponent(id)}`).join('&'));
      assert.deepEqual(titles(res.body), ['Wool Socks', 'Running Shoes', 'Rain Jacket']);
      const paged = await t.request('GET', `/api/v1/product?perPage=1&page=2&${wanted.map((id) => `_ids[]=${encodeURIComponent(id)}`).join('&')}`);
      assert.deepEqual(titles(paged.body), ['Running Shoes']);
      assert.deepEqual((await list(`_ids=${ids.get('Wool Socks')}`)).body.results, []);
    });

    it('hides archived documents unless archived=1 or any asks for them', async () => {
      const id = ids.get('#2 Special')!;
      assert.equal((await t.request('PATCH', `/api/v1/product/${id}`, { body: { archived: true } })).status, 200);
      assert.equal(titles((await list('')).body).includes('#2 Special'), false);
      assert.deepEqual(titles((await list('archived=1')).body), ['#2 Special']);
      assert.equal((await list('archived=any')).body.results.length, seeds.length);
      assert.equal((await t.request('GET', `/api/v1/product/${id}`)).status, 404);
      assert.equal((await t.request('GET', `/api/v1/product/${id}?archived=any`)).status, 200);
      assert.equal((await list('archived=perhaps')).status, 400);
      assert.equal((await t.request('PATCH', `/api/v1/product/${id}`, { body: { archived: false } })).status, 200);
    });

    it('answers only the count with count=1, filters applied', async () => {
      assert.deepEqual((await list('count=1')).body, { count: seeds.length });
      assert.deepEqual((await list('count=1&color=blue')).body, { count: 2 });
    });

    it('pages with perPage capped at 100 and an empty page past the end', async () => {
      const res = await t.request('GET', '/api/v1/product?perPage=4&page=2');
      assert.deepEqual({ pages: res.body.pages, currentPage: res.body.currentPage, n: res.body.results.length }, { pages: 2, currentPage: 2, n: 2 });
      const past = await t.request('GET', '/api/v1/product?perPage=4&page=9');
      assert.deepEqual({ pages: past.body.pages, currentPage: past.body.currentPage, results: past.body.results }, { pages: 2, currentPage: 9, results: [] });
      assert.equal((await t.request('GET', '/api/v1/product?perPage=1000')).status, 200);
      for (const bad of ['page=0', 'perPage=-1', 'page=1e400', 'page[]=1']) {
        assert.equal((await t.request('GET', `/api/v1/product?${bad}`)).status, 400, bad);
      }
    });
  });

  describe('choices and counts', () => {
    it('lists the values of each named filter with labels, each computed without its own filter', async () => {
      const res = await list('color=blue&choices=color,tags,featured,nothing');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.choices.color, [
        { value: 'blue', label: 'Blue' },
        { value: 'green', label: 'Green' },
        { value: 'red', label: 'Red' },
      ]);
      assert.deepEqual(res.body.choices.tags, [
        { value: 'new', label: 'New' },
        { value: 'sale', label: 'Sale' },
      ]);
      assert.deepEqual(res.body.choices.featured, [
        { value: false, label: 'No' },
        { value: true, label: 'Yes' },
      ]);
      assert.equal('nothing' in res.body.choices, false);
      assert.equal('counts' in res.body, false);
    });

    it('gives as choices the values counts= counts, without their counts, for whole and filtered lists', async () => {
      const names = 'color,tags,featured,category,priority,releasedOn';
      for (const query of ['', 'archived=any', 'archived=1', 'color=blue', 'featured=true&tags=new', 'autocomplete=boots']) {
        const res = await list(`${query}&choices=${names}&counts=${names}`);
        assert.equal(res.status, 200, res.text);
        for (const name of names.split(',')) {
          const counted = res.body.counts[name].map(({ count: _count, ...choice }: { count: number }) => choice);
          assert.deepEqual(res.body.choices[name], counted, `${query}: ${name}`);
        }
      }
    });

    it('counts documents per value with counts=', async () => {
      const res = await list('counts[]=color&category=footwear');
      assert.deepEqual(res.body.counts.color, [
        { value: 'blue', label: 'Blue', count: 1 },
        { value: 'red', label: 'Red', count: 1 },
      ]);
      assert.equal('choices' in res.body, false);
    });
  });

  describe('the public projection governs every parameter', () => {
    const anonymous = (query: string) => list(query, null);

    it('reads only projected properties', async () => {
      const res = await anonymous('');
      assert.equal(res.status, 200);
      for (const doc of res.body.results) {
        assert.equal('secret' in doc, false);
        assert.equal('priority' in doc, false);
      }
    });

    it('ignores a filter on a hidden field', async () => {
      assert.equal((await list('secret=zanzibar')).body.results.length, 1);
      assert.equal((await anonymous('secret=zanzibar')).body.results.length, seeds.length);
      assert.equal((await anonymous('priority=5')).body.results.length, seeds.length);
      assert.equal((await anonymous('color=blue')).body.results.length, 2);
    });

    it('never finds a document by the text of a hidden field', async () => {
      assert.deepEqual(titles((await list('search=zanzibar')).body), ['Running Shoes']);
      assert.deepEqual(titles((await anonymous('search=zanzibar')).body), []);
      assert.deepEqual(titles((await anonymous('autocomplete=zanz')).body), []);
      assert.deepEqual(titles((await anonymous('search=mountains')).body), ['Hiking Boots']);
    });

    it('refuses to sort on a hidden field', async () => {
      assert.equal((await list('sort[priority]=1')).status, 200);
      assert.equal((await anonymous('sort[priority]=1')).status, 400);
      assert.equal((await anonymous('sort[secret]=1')).status, 400);
      assert.equal((await anonymous('sort[title]=1')).status, 200);
    });

    it('counts without hidden filters', async () => {
      assert.deepEqual((await list('count=1&secret=zanzibar')).body, { count: 1 });
      assert.deepEqual((await anonymous('count=1&secret=zanzibar')).body, { count: seeds.length });
    });

    it('gives no choices or counts for a hidden field', async () => {
      assert.equal((await list('choices=priority')).body.choices.priority.length, 6);
      const res = await anonymous('choices=priority,secret,color&counts=priority');
      assert.deepEqual(Object.keys(res.body.choices), ['color']);
      assert.deepEqual(res.body.counts, {});
    });

    it('keeps the public projection whatever project asks', async () => {
      const res = await anonymous('project[secret]=1&project[title]=1');
      assert.equal(res.status, 200);
      for (const doc of res.body.results) assert.equal('secret' in doc, false);
    });

    it('cannot reach _ids of hidden or archived documents', async () => {
      const draft = await t.request('POST', '/api/v1/product?cmsMode=draft', { body: { title: 'Unpublished' } });
      const res = await anonymous(`_ids[]=${draft.body.cmsDocId}`);
      assert.deepEqual(res.body.results, []);
    });
  });

  describe('_url, _parentUrl and _parentSlug', () => {
    it('builds them from baseUrl, the locale prefix and pagePath', async () => {
      const en = await list('title=rain');
      assert.equal(en.body.results[0]._url, 'http://shop.test/products/rain-jacket');
      assert.equal(en.body.results[0]._parentUrl, 'http://shop.test/products');
      const id = ids.get('Rain Jacket')!;
      const localized = await t.request('POST', `/api/v1/product/${id}:en:draft/localize`, { body: { toLocale: 'fr' } });
      assert.equal(localized.status, 200, localized.text);
      assert.equal(localized.body._url, 'http://shop.test/fr/products/rain-jacket');
      assert.equal(localized.body._parentUrl, 'http://shop.test/fr/products');
      // The original's page slug: the path, without the locale prefix.
      assert.deepEqual([en.body.results[0]._parentSlug, localized.body._parentSlug], ['/products', '/products']);
    });
  });
});
