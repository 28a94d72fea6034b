import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { keys, startTestApp, type TestApp } from '../helpers/test-app.js';

/** A `post` type whose area offers bold and links only, plus a custom `quote` widget. */
function areaConfig(): Record<string, unknown> {
  return {
    apiKeys: { [keys.admin]: { role: 'admin' } },
    widgets: { quote: { fields: { add: { text: { type: 'string' }, author: { type: 'string' } } } } },
    modules: {
      post: {
        extend: '@cms/piece-type',
        options: { label: 'Post' },
        fields: {
          add: {
            body: {
              type: 'area',
              options: {
                widgets: { '@cms/rich-text': { toolbar: ['bold', 'link', 'anchor'], insert: ['image'] }, quote: {} },
              },
            },
          },
        },
      },
    },
  };
}

const widgetKeys = ['_docId', '_edit', '_id', 'cmsPlaceholder', 'content', 'imageIds', 'metaType', 'permalinkIds', 'type'];

describe('areas through the REST interface', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(areaConfig());
  });
  after(() => t.close());

  async function create(body: unknown) {
    return t.request('POST', '/api/v1/post', { body: { title: 'Post', body } });
  }

  it('stores an area object with sanitized rich text and the ids it refers to', async () => {
    const content = '<h2>Gone</h2><p><b>Bold</b> <i>plain</i> <span data-anchor="top">a</span>'
      + ' <a href="#cms-permalink-doc1?updateTitle=1" onclick="x()">link</a><script>x()</script></p>'
      + '<figure><img src="/api/v1/@cms/image/img1/src" alt="A" /></figure>';
    const res = await create({ _id: 'area1', metaType: 'area', items: [{ _id: 'w1', type: '@cms/rich-text', content }] });
    assert.equal(res.status, 200, res.text);
    const area = res.body.body;
    assert.equal(area._id, 'area1');
    assert.equal(area.metaType, 'area');
    assert.equal(area._docId, res.body._id);
    assert.equal(area._edit, true);
    const widget = area.items[0];
    assert.deepEqual(Object.keys(widget).sort(), widgetKeys);
    assert.equal(widget._id, 'w1');
    assert.equal(widget.metaType, 'widget');
    assert.equal(widget.type, '@cms/rich-text');
    assert.equal(widget.cmsPlaceholder, false);
    assert.equal(widget._docId, res.body._id);
    assert.equal(
      widget.content,
      'Gone<p><b>Bold</b> plain <span id="top">a</span> <a href="#cms-permalink-doc1?updateTitle=1">link</a></p>'
        + '<figure><img src="/api/v1/@cms/image/img1/src" alt="A" /></figure>',
    );
    assert.deepEqual(widget.permalinkIds, ['doc1']);
    assert.deepEqual(widget.imageIds, ['img1']);

    const read = await t.request('GET', `/api/v1/post/${res.body._id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body.body, area, 'what is returned is what was stored');
  });

  it('accepts a bare array of widgets, custom widgets included', async () => {
    const res = await create([
      { type: 'quote', text: '<b>Quoted</b>', author: 'Ada' },
      { type: '@cms/rich-text', content: '<p>x</p>' },
    ]);
    assert.equal(res.status, 200, res.text);
    const [quote, text] = res.body.body.items;
    assert.equal(quote.type, 'quote');
    assert.equal(quote.metaType, 'widget');
    assert.equal(quote.cmsPlaceholder, false);
    assert.equal(quote.text, '<b>Quoted</b>', 'string fields are stored as text and escaped when rendered');
    assert.equal(quote.author, 'Ada');
    assert.match(quote._id, /^[A-Za-z0-9_-]+$/);
    assert.equal(text.content, '<p>x</p>');
    assert.notEqual(quote._id, text._id);
  });

  it('turns a string into one rich-text widget of its escaped text, as the original does', async () => {
    const res = await create('a <b> & c');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.body.metaType, 'area');
    assert.equal(res.body.body.items.length, 1);
    assert.equal(res.body.body.items[0].type, '@cms/rich-text');
    assert.equal(res.body.body.items[0].content, 'a &lt;b&gt; &amp; c');
  });

  it('keeps valid widget ids and regenerates duplicated or invalid ones', async () => {
    const res = await create([
      { _id: 'keep-me', type: '@cms/rich-text', content: '<p>1</p>' },
      { _id: 'keep-me', type: '@cms/rich-text', content: '<p>2</p>' },
      { _id: 'not valid!', type: 'quote', text: 'q' },
    ]);
    assert.equal(res.status, 200, res.text);
    const ids = res.body.body.items.map((item: { _id: string }) => item._id);
    assert.equal(ids[0], 'keep-me');
    assert.notEqual(ids[1], 'keep-me');
    assert.notEqual(ids[2], 'not valid!');
    assert.equal(new Set(ids).size, 3);
  });

  it('refuses unknown widget types with a 400 naming the path, and stores nothing', async () => {
    const count = async () => (await t.request('GET', '/api/v1/post?cmsMode=draft&perPage=100')).body.results.length;
    const before = await count();
    const res = await create([{ type: '@cms/rich-text', content: '<p>ok</p>' }, { type: 'ghost' }, { type: '@cms/image' }]);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.name, 'invalid');
    const body = res.body.data.errors.find((e: { path: string }) => e.path === 'body');
    assert.ok(body, res.text);
    assert.deepEqual(
      body.data.errors.map((e: { path: string; name: string }) => [e.path, e.name]),
      [['1.type', 'invalid'], ['2.type', 'invalid']],
    );
    assert.equal(await count(), before);
  });

  it('makes rich text searchable, words of separate blocks kept apart', async () => {
    const res = await create([{ type: '@cms/rich-text', content: '<p>striped<b>zebra</b></p><p>crossing</p>' }]);
    assert.equal(res.status, 200, res.text);
    const found = await t.request('GET', '/api/v1/post?search=crossing');
    assert.deepEqual(found.body.results.map((doc: { _id: string }) => doc._id), [res.body._id]);
    const merged = await t.request('GET', '/api/v1/post?search=zebracrossing');
    assert.deepEqual(merged.body.results, []);
  });

  it('refuses rich text content that is not a string', async () => {
    const res = await create([{ type: '@cms/rich-text', content: { html: '<p>x</p>' } }]);
    assert.equal(res.status, 400, res.text);
    const body = res.body.data.errors.find((e: { path: string }) => e.path === 'body');
    assert.deepEqual(body.data.errors.map((e: { path: string }) => e.path), ['0.content']);
  });

  describe('renderAreas', () => {
    let id: string;
    before(async () => {
      const res = await create([
        { _id: 'r1', type: '@cms/rich-text', content: '<p>Hello <b>there</b></p>' },
        { _id: 'q1', type: 'quote', text: '<i>not html</i>', author: 'Ada' },
      ]);
      assert.equal(res.status, 200, res.text);
      id = res.body._id;
    });

    // The original's templates for a reader (area.html, rich-text widget.html), `apos-` renamed `cms-`.
    const areaHtml = (widgets: string) => `<div \n  class="cms-area"\n  >${widgets}</div>`;
    const richHtml = '\n<div data-rich-text>\n  <p>Hello <b>there</b></p>\n</div>\n';
    const quoteHtml = '<div class="cms-widget cms-widget--quote">'
      + '<div class="cms-widget__field" data-field="text">&lt;i&gt;not html&lt;/i&gt;</div>'
      + '<div class="cms-widget__field" data-field="author">Ada</div></div>';

    it('replaces the items of each area by its HTML with true or 1, on GET one and on the list', async () => {
      const one = await t.request('GET', `/api/v1/post/${id}?renderAreas=true`);
      assert.equal(one.status, 200, one.text);
      assert.equal('items' in one.body.body, false);
      assert.equal(one.body.body.metaType, 'area');
      assert.equal(one.body.body._docId, id);
      assert.equal(
        one.body.body._rendered,
        areaHtml(`${richHtml}${quoteHtml}`),
      );
      const listed = await t.request('GET', `/api/v1/post?_ids[]=${id}&render-areas=1`);
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.body.results[0].body, one.body.body);
    });

    it('renders rich text as the original\'s renderArea test expects it, whitespace included', async () => {
      const content = '<p>Perhaps its fate that today is the 4th of July, and you will once again be fighting for our freedom, not from tyranny, oppression, or persecution -- but from annihilation.</p><p>We\'re fighting for our right to live, to exist.</p>';
      const res = await create([{ type: '@cms/rich-text', content }]);
      assert.equal(res.status, 200, res.text);
      const one = await t.request('GET', `/api/v1/post/${res.body._id}?renderAreas=true`);
      const expected = `<div \n  class="cms-area"\n  >\n<div data-rich-text>\n  ${content}\n</div>\n</div>`;
      assert.equal(one.body.body._rendered, expected);
    });

    it('keeps the items and gives each widget its HTML with inline', async () => {
      const res = await t.request('GET', `/api/v1/post/${id}?renderAreas=inline`);
      assert.equal(res.status, 200, res.text);
      const [rich, quote] = res.body.body.items;
      assert.equal(rich.content, '<p>Hello <b>there</b></p>');
      assert.equal(rich._rendered, richHtml);
      assert.equal(quote.author, 'Ada');
      assert.equal(quote._rendered, quoteHtml);
    });

    it('leaves areas as stored with false, and refuses a value it cannot read', async () => {
      const plain = await t.request('GET', `/api/v1/post/${id}?renderAreas=false`);
      assert.equal(plain.status, 200, plain.text);
      assert.equal(plain.body.body.items.length, 2);
      assert.equal('_rendered' in plain.body.body, false);
      const bad = await t.request('GET', `/api/v1/post/${id}?renderAreas=sometimes`);
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.name, 'invalid');
    });
  });
});
