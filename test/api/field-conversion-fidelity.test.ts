import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { keys, startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * `product`: a color, an area whose widgets come only from a group without rich text, a
 * rich-text area without links, and relationships to `topic` at the top, in an array and in
 * an object (the original's `relationshipsInArray` / `relationshipsInObject` test types).
 */
function fidelityConfig(): Record<string, unknown> {
  const toTopics = { type: 'relationship', withType: 'topic' };
  return {
    apiKeys: { [keys.admin]: { role: 'admin' } },
    widgets: { quote: { fields: { add: { text: { type: 'string' } } } } },
    modules: {
      topic: {
        extend: '@cms/piece-type',
        options: { label: 'Topic' },
        fields: { add: { _products: { type: 'relationshipReverse', withType: 'product' } } },
      },
      product: {
        extend: '@cms/piece-type',
        options: { label: 'Product' },
        fields: {
          add: {
            shade: { type: 'color' },
            body: { type: 'area', options: { groups: { layout: { label: 'Layout', widgets: { quote: {} } } } } },
            notes: { type: 'area', options: { widgets: { '@cms/rich-text': { toolbar: ['bold'] } } } },
            _topics: toTopics,
            relationshipsInArray: { type: 'array', fields: { add: { _topics: toTopics } } },
            relationshipsInObject: { type: 'object', fields: { add: { _topics: toTopics } } },
          },
        },
      },
    },
  };
}

describe('field conversion as the original does it', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(fidelityConfig());
  });
  after(() => t.close());

  const create = (body: Record<string, unknown>) => t.request('POST', '/api/v1/product', { body: { title: 'P', ...body } });

  describe('an area given a string', () => {
    const text = 'Fish & "chips" <b>now</b>\nsee https://example.com/a?b=1&c=2 ok';
    const html = 'Fish &amp; &#34;chips&#34; &lt;b&gt;now&lt;/b&gt;<br />see '
      + '<a href="https://example.com/a?b=1&amp;c=2">https://example.com/a?b=1&amp;c=2</a> ok';

    it('stores the escaped text in one rich-text widget, in areas whose groups or toolbar would not take it', async () => {
      const res = await create({ body: text, notes: text });
      assert.equal(res.status, 200, res.text);
      for (const area of [res.body.body, res.body.notes]) {
        assert.equal(area.metaType, 'area');
        assert.equal(area.items.length, 1);
        const [widget] = area.items;
        assert.deepEqual(Object.keys(widget).sort(), ['_docId', '_edit', '_id', 'cmsPlaceholder', 'content', 'imageIds', 'metaType', 'permalinkIds', 'type']);
        assert.equal(widget.type, '@cms/rich-text');
        assert.equal(widget.metaType, 'widget');
        assert.equal(widget.content, html);
        assert.deepEqual(widget.permalinkIds, []);
      }
      const read = await t.request('GET', `/api/v1/product/${res.body._id}`);
      assert.deepEqual(read.body.body, res.body.body, 'stored as answered');
    });

    it('makes an empty string an empty area, and takes a string in a PATCH too', async () => {
      const res = await create({ body: '' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.body.items, []);
      const patched = await t.request('PATCH', `/api/v1/product/${res.body._id}`, { body: { body: 'a < b' } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.body._id, res.body.body._id, 'the area keeps its id');
      assert.equal(patched.body.body.items[0].content, 'a &lt; b');
    });

    it('renders it as the original renders rich text, and finds its words', async () => {
      const res = await create({ title: 'Searchable', body: 'Velvet "mole" & co' });
      const rendered = await t.request('GET', `/api/v1/product/${res.body._id}?renderAreas=true`);
      assert.equal(rendered.status, 200, rendered.text);
      assert.equal(
        rendered.body.body._rendered,
        '<div \n  class="cms-area"\n  >\n<div data-rich-text>\n  Velvet &#34;mole&#34; &amp; co\n</div>\n</div>',
      );
      const found = await t.request('GET', '/api/v1/product?search=mole');
      assert.deepEqual(found.body.results.map((doc: { _id: string }) => doc._id), [res.body._id]);
    });
  });

  describe('color', () => {
    it('accepts a CSS variable name and stores it as given, beside the color spellings', async () => {
      for (const shade of ['--brand', '--Brand_2-dark', '#336699', 'rgb(1, 2, 3)']) {
        const res = await create({ shade });
        assert.equal(res.status, 200, `${shade}: ${res.text}`);
        assert.equal(res.body.shade, shade);
      }
    });

    it('refuses what only looks like one, naming the field, and stores nothing', async () => {
      const before = (await t.request('GET', '/api/v1/product?cmsMode=draft&count=1')).body.count;
      for (const shade of ['--', '--x: red}</style><script>alert(1)</script>', '-- brand', 'var(--brand)', '--brand;']) {
        const res = await create({ shade });
        assert.equal(res.status, 400, `${shade}: ${res.text}`);
        assert.equal(res.body.name, 'invalid');
        assert.equal(res.body.data.errors[0].path, 'shade');
      }
      assert.equal((await t.request('GET', '/api/v1/product?cmsMode=draft&count=1')).body.count, before);
    });
  });

  describe('PATCH keys through what the document does not hold', () => {
    it('refuses a dot path through an inherited or absent property with 400 invalid, and stores nothing', async () => {
      const res = await create({ shade: '#fff' });
      const url = `/api/v1/product/${res.body._id}`;
      for (const key of ['toString.call', 'hasOwnProperty.x', 'nothing.here', 'relationshipsInObject.toString.call', '__proto__.x']) {
        const refused = await t.request('PATCH', url, { body: { [key]: 'x' } });
        assert.equal(refused.status, 400, `${key}: ${refused.text}`);
        assert.equal(refused.body.name, 'invalid');
        assert.equal(refused.body.data.errors[0].path, key);
      }
      const after = await t.request('GET', url);
      assert.equal(after.body.updatedAt, res.body.updatedAt);
    });

    it('still drops a plain key that names no field, as an insert does', async () => {
      const res = await create({});
      const patched = await t.request('PATCH', `/api/v1/product/${res.body._id}`, { body: { toString: 'x', shade: '--accent' } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.shade, '--accent');
      assert.equal(Object.hasOwn(patched.body, 'toString'), false);
    });
  });

  describe('_newInstance', () => {
    it('answers relationships as null, at the top and inside objects, as the original does', async () => {
      const res = await t.request('POST', '/api/v1/product', { body: { _newInstance: true, title: 'Product 01' } });
      assert.equal(res.status, 200, res.text);
      const doc = res.body;
      assert.equal(doc._topics, null);
      assert.equal('topicsIds' in doc, false);
      assert.equal('topicsFields' in doc, false);
      assert.deepEqual(doc.relationshipsInArray, []);
      assert.deepEqual(doc.relationshipsInObject, { _topics: null });
      assert.equal(doc.shade, null);
      assert.deepEqual(doc.body.items, []);
      assert.equal(doc.title, 'Product 01');
      assert.equal(doc._previewable, false);
      const reverse = await t.request('POST', '/api/v1/topic', { body: { _newInstance: true } });
      assert.equal(reverse.body._products, null);
    });

    it('is accepted back as the body of an insert', async () => {
      const fresh = await t.request('POST', '/api/v1/product', { body: { _newInstance: true, title: 'Product 02' } });
      const { _previewable: _ignored, ...body } = fresh.body;
      const inserted = await t.request('POST', '/api/v1/product', { body });
      assert.equal(inserted.status, 200, inserted.text);
      assert.deepEqual(inserted.body._topics, []);
      assert.deepEqual(inserted.body.topicsIds, []);
      assert.deepEqual(inserted.body.relationshipsInObject.topicsIds, []);
      assert.equal(inserted.body.relationshipsInObject.metaType, 'object');
    });
  });
});
