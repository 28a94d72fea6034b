import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { DocumentStore, StorageAdapter } from '../../src/storage/storage-adapter.js';
import { keys, startTestApp, type TestApp } from '../helpers/test-app.js';
import { makeImage, uploaded } from '../helpers/media.js';

const piece = (fields: Record<string, unknown>, options: Record<string, unknown> = {}) => ({
  extend: '@cms/piece-type',
  options,
  fields: { add: fields },
});

const area = (widgets: string[]) => ({ type: 'area', options: { widgets: Object.fromEntries(widgets.map((name) => [name, {}])) } });

/**
 * `card` holds a relationship and an array holding one; `box` nests an area of cards and an
 * object holding a relationship. `person` is public (title and slug), `topic` has no public API.
 */
function widgetConfig(): Record<string, unknown> {
  return {
    baseUrl: 'http://cms.test',
    locales: { en: { label: 'English' } },
    apiKeys: { [keys.admin]: { role: 'admin' }, [keys.guest]: { role: 'guest' } },
    widgets: {
      card: {
        fields: {
          add: {
            _person: { type: 'relationship', withType: 'person' },
            links: { type: 'array', fields: { add: { _topic: { type: 'relationship', withType: 'topic' } } } },
          },
        },
      },
      box: {
        fields: {
          add: {
            inner: area(['card']),
            meta: { type: 'object', fields: { add: { _patron: { type: 'relationship', withType: 'person' } } } },
          },
        },
      },
    },
    modules: {
      person: piece({ bio: { type: 'string' } }, { publicApiProjection: { title: 1, slug: 1, _url: 1 }, pagePath: '/people' }),
      topic: piece({ code: { type: 'string' } }),
      page: piece(
        { body: area(['card', 'box', '@cms/image', '@cms/rich-text']) },
        { publicApiProjection: { title: 1, body: 1 }, perPage: 100 },
      ),
      plain: piece({ body: area(['@cms/rich-text']) }, { perPage: 100 }),
      ledger: piece({ body: area(['@cms/image']) }, { viewRole: 'admin' }),
    },
  };
}

/** Counts `documents.find` on the real adapter. */
function countFinds(counter: { finds: number }) {
  const bound = <T extends object>(target: T, prop: string | symbol) => {
    const value = Reflect.get(target, prop, target);
    return typeof value === 'function' ? value.bind(target) : value;
  };
  return (adapter: StorageAdapter): StorageAdapter => {
    const documents = new Proxy(adapter.documents, {
      get(target, prop) {
        if (prop !== 'find') return bound(target, prop);
        return (query: Parameters<DocumentStore['find']>[0]) => {
          counter.finds++;
          return target.find(query);
        };
      },
    });
    return new Proxy(adapter, { get: (target, prop) => (prop === 'documents' ? documents : bound(target, prop)) });
  };
}

describe('relationships inside widgets', () => {
  const counter = { finds: 0 };
  let t: TestApp;
  const people: Record<string, any> = {};
  let topic: Record<string, any>;

  const create = async (type: string, body: Record<string, unknown>) => {
    const res = await t.request('POST', `/api/v1/${type}`, { body });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  /** A card (person, topic in an array) and a box (a nested card, a patron in an object). */
  const body = (person: string, patron: string) => ({
    items: [
      { type: 'card', _person: [person], links: [{ _topic: [topic._id] }] },
      { type: 'box', inner: { items: [{ type: 'card', _person: [person] }] }, meta: { _patron: [patron] } },
    ],
  });

  before(async () => {
    t = await startTestApp(widgetConfig(), {}, { wrapStorage: countFinds(counter) });
    people.ada = await create('person', { title: 'Ada <Lovelace>', bio: 'private bio' });
    people.grace = await create('person', { title: 'Grace', visibility: 'loginRequired' });
    people.gone = await create('person', { title: 'Gone' });
    topic = await create('topic', { title: 'Secret Topic' });
  });
  after(() => t.close());

  it('stores ids in widgets, arrays in widgets and nested areas, and loads them', async () => {
    const page = await create('page', { title: 'Loaded', body: body(people.ada._id, people.grace._id) });
    const [card, box] = page.body.items;
    assert.deepEqual(card.personIds, [people.ada.cmsDocId]);
    assert.equal(card._person[0].title, 'Ada <Lovelace>');
    assert.equal(card._person[0].bio, 'private bio');
    assert.deepEqual(card.links[0].topicIds, [topic.cmsDocId]);
    assert.equal(card.links[0]._topic[0].title, 'Secret Topic');
    assert.equal(box.inner.items[0]._person[0]._id, people.ada._id);
    assert.equal(box.meta._patron[0]._id, people.grace._id);
    const fetched = await t.request('GET', `/api/v1/page/${page._id}`);
    assert.deepEqual(fetched.body.body, page.body);
  });

  it('shows anonymous callers what top-level relationships would: projected, visible, not archived', async () => {
    const page = await create('page', { title: 'Public', body: body(people.ada._id, people.grace._id) });
    const doomed = await create('page', { title: 'Archived Target', body: body(people.gone._id, people.gone._id) });
    assert.equal((await t.request('PATCH', `/api/v1/person/${people.gone._id}`, { body: { archived: true } })).status, 200);

    const res = await t.request('GET', `/api/v1/page/${page._id}`, { key: null });
    assert.equal(res.status, 200, res.text);
    const [card, box] = res.body.body.items;
    assert.deepEqual(Object.keys(card._person[0]).sort(), ['_fields', '_id', '_parentSlug', '_parentUrl', '_url', 'cacheInvalidatedAt', 'metaType', 'slug', 'title', 'type']);
    assert.equal(card._person[0].title, 'Ada <Lovelace>');
    assert.deepEqual(card.links[0]._topic, [], 'a type without public API shows nothing');
    assert.deepEqual(box.meta._patron, [], 'loginRequired is hidden from anonymous callers');
    const guest = await t.request('GET', `/api/v1/page/${page._id}`, { key: 'guest' });
    assert.equal(guest.body.body.items[1].meta._patron[0].title, 'Grace');
    const archived = await t.request('GET', `/api/v1/page/${doomed._id}`, { key: null });
    assert.deepEqual(archived.body.body.items[0]._person, []);
    assert.deepEqual((await t.request('GET', `/api/v1/page/${doomed._id}`)).body.body.items[1].meta._patron, []);
  });

  it('loads one query per relationship field definition for a whole page of documents', async () => {
    for (let i = 0; i < 30; i++) {
      await create('plain', { title: `Plain ${i}` });
      await create('page', { title: `Many ${i}`, body: body(people.ada._id, people.grace._id) });
    }
    counter.finds = 0;
    const plain = await t.request('GET', '/api/v1/plain');
    const baseline = counter.finds;
    counter.finds = 0;
    const pages = await t.request('GET', '/api/v1/page');
    assert.ok(plain.body.results.length >= 30);
    assert.ok(pages.body.results.length >= 30);
    assert.equal(counter.finds, baseline + 3, 'card._person, card.links._topic and box.meta._patron');
    for (const result of pages.body.results.filter((r: { title: string }) => r.title.startsWith('Many'))) {
      assert.equal(result.body.items[1].inner.items[0]._person[0].title, 'Ada <Lovelace>');
    }
  });

  it('renders related documents of widgets with renderAreas, escaped and linked', async () => {
    const page = await create('page', { title: 'Rendered', body: body(people.ada._id, people.grace._id) });
    const res = await t.request('GET', `/api/v1/page/${page._id}?renderAreas=true`, { key: null });
    assert.equal(res.status, 200, res.text);
    const html: string = res.body.body._rendered;
    const link = `<a class="cms-widget__related" href="http://cms.test/people/${people.ada.slug}">Ada &lt;Lovelace&gt;</a>`;
    assert.equal(html.split(link).length - 1, 2, `the card and the nested card link Ada: ${html}`);
    assert.ok(!html.includes('Secret Topic'));
    assert.ok(!html.includes('Grace'));
  });
});

describe('the @cms/image widget', () => {
  let t: TestApp;
  let image: Record<string, any>;
  const config = () => {
    const base = widgetConfig();
    return { ...base, apiKeys: { ...(base.apiKeys as object), [keys.editor]: { role: 'editor' } } };
  };

  before(async () => {
    t = await startTestApp(config());
    const attachment = await uploaded(t, 'red.png', await makeImage('png', 600, 400));
    const res = await t.request('POST', '/api/v1/@cms/image', {
      body: { title: 'Red Box', alt: 'A "red" <box>', attachment: { _id: attachment._id } },
    });
    assert.equal(res.status, 200, res.text);
    image = res.body;
  });
  after(() => t.close());

  async function pageWith(widget: Record<string, unknown>) {
    return t.request('POST', '/api/v1/page', { body: { title: 'With Image', body: { items: [widget] } } });
  }

  async function newImage(title: string): Promise<Record<string, any>> {
    const res = await t.request('POST', '/api/v1/@cms/image', { body: { title, attachment: { _id: image.attachment._id } } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  /** Rich text showing `imageDocId` inline, as the admin's image tool writes it. */
  const inlineImage = (imageDocId: string) => ({
    items: [{ type: '@cms/rich-text', content: `<p>Look:</p><figure><img src="/api/v1/@cms/image/${imageDocId}/src" alt="" /></figure>` }],
  });

  /** Published documents of three types showing `shown`: a page's widget, a plain's rich text, a ledger editors may not read. */
  async function showEverywhere(shown: Record<string, any>) {
    const page = (await pageWith({ type: '@cms/image', _image: [shown._id] })).body;
    const plain = (await t.request('POST', '/api/v1/plain', { body: { title: 'Inline', body: inlineImage(shown.cmsDocId) } })).body;
    const ledger = await t.request('POST', '/api/v1/ledger', { body: { title: 'Secret ledger', body: { items: [{ type: '@cms/image', _image: [shown._id] }] } } });
    assert.equal(ledger.status, 200, ledger.text);
    return { page, plain, ledger: ledger.body };
  }

  it('names the documents showing an image in a widget or inline in rich text among its relatedReverseIds', async () => {
    const shown = await newImage('Shown');
    const { page, plain } = await showEverywhere(shown);
    assert.deepEqual(plain.body.items[0].imageIds, [shown.cmsDocId]);
    const reverse = async () => (await t.request('GET', `/api/v1/@cms/image/${shown._id}`)).body.relatedReverseIds.sort();
    const all = await reverse();
    assert.equal(all.length, 3);
    assert.ok(all.includes(page.cmsDocId) && all.includes(plain.cmsDocId), 'the widget and the inline image');
    const dropped = await t.request('PATCH', `/api/v1/plain/${plain._id}`, { body: { body: { items: [{ type: '@cms/rich-text', content: '<p>No image</p>' }] } } });
    assert.equal(dropped.status, 200, dropped.text);
    assert.ok(!(await reverse()).includes(plain.cmsDocId), 'the rich text no longer shows it');
  });

  it('refuses to delete or archive an image published documents show, naming those the caller may read, unless force=true', async () => {
    const shown = await newImage('Busy');
    const { page, plain } = await showEverywhere(shown);
    const draftOnly = await t.request('POST', '/api/v1/page?cmsMode=draft', { body: { title: 'Draft only', body: { items: [{ type: '@cms/image', _image: [shown._id] }] } } });
    assert.equal(draftOnly.status, 200, draftOnly.text);
    const readable = [
      { _id: page._id, type: 'page', title: 'With Image' },
      { _id: plain._id, type: 'plain', title: 'Inline' },
    ];
    const attempts: ['DELETE' | 'PATCH', string, unknown][] = [
      ['DELETE', `/api/v1/@cms/image/${shown._id}`, undefined],
      ['DELETE', `/api/v1/@cms/image/${shown.cmsDocId}:en:draft`, undefined],
      ['PATCH', `/api/v1/@cms/image/${shown._id}`, { archived: true }],
      ['PATCH', `/api/v1/@cms/image/${shown._id}?force=false`, { archived: true }],
    ];
    for (const [method, url, body] of attempts) {
      const res = await t.request(method, url, { key: 'editor', body });
      assert.equal(res.status, 409, `${method} ${url}: ${res.text}`);
      assert.equal(res.body.name, 'conflict');
      const documents = [...res.body.data.documents].sort((a, b) => a.type.localeCompare(b.type));
      assert.deepEqual({ ...res.body.data, documents }, { documents: readable, others: 1 }, 'the ledger is counted, never named');
      assert.ok(!res.body.message.includes('Secret ledger'), res.body.message);
      assert.match(res.body.message, /shown by 3 published documents .*1 other\): send force=true/);
    }
    const admin = await t.request('DELETE', `/api/v1/@cms/image/${shown._id}`);
    assert.equal(admin.status, 409);
    assert.deepEqual(admin.body.data.documents.map((doc: { type: string }) => doc.type).sort(), ['ledger', 'page', 'plain']);
    assert.equal(admin.body.data.others, 0);
    const odd = await t.request('DELETE', `/api/v1/@cms/image/${shown._id}?force=yes`, { key: 'editor' });
    assert.equal(odd.status, 400, odd.text);
    assert.equal(odd.body.name, 'invalid');
    const still = await t.request('GET', `/api/v1/@cms/image/${shown._id}`, { key: null });
    assert.equal(still.status, 200, 'nothing was archived or deleted');

    const archived = await t.request('PATCH', `/api/v1/@cms/image/${shown._id}?force=true`, { key: 'editor', body: { archived: true } });
    assert.equal(archived.status, 200, archived.text);
    const restored = await t.request('PATCH', `/api/v1/@cms/image/${shown._id}`, { key: 'editor', body: { archived: false } });
    assert.equal(restored.status, 200, `restoring is never refused: ${restored.text}`);
    const deleted = await t.request('DELETE', `/api/v1/@cms/image/${shown.cmsDocId}:en:draft?force=true`, { key: 'editor' });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await t.request('GET', `/api/v1/@cms/image/${shown._id}`, { key: null })).status, 404);
  });

  it('deletes an image only drafts and archived documents show without asking', async () => {
    const shown = await newImage('Quiet');
    const draft = await t.request('POST', '/api/v1/page?cmsMode=draft', { body: { title: 'Draft', body: { items: [{ type: '@cms/image', _image: [shown._id] }] } } });
    assert.equal(draft.status, 200, draft.text);
    const archivedPage = (await pageWith({ type: '@cms/image', _image: [shown._id] })).body;
    assert.equal((await t.request('PATCH', `/api/v1/page/${archivedPage._id}`, { body: { archived: true } })).status, 200);
    const res = await t.request('DELETE', `/api/v1/@cms/image/${shown._id}`, { key: 'editor' });
    assert.equal(res.status, 200, res.text);
  });

  it('stores the image id, shows the image with its URLs, to anonymous callers too', async () => {
    const res = await pageWith({ type: '@cms/image', _image: [image._id], caption: 'Red & <b>bold</b>' });
    assert.equal(res.status, 200, res.text);
    const widget = res.body.body.items[0];
    assert.deepEqual(widget.imageIds, [image.cmsDocId]);
    assert.equal(widget.caption, 'Red & <b>bold</b>');
    assert.equal(widget._image[0]._id, image._id);
    assert.match(widget._image[0].attachment._urls.full, /^http:\/\/cms\.test\/uploads\/attachments\/.+\.full\.png$/);
    const anonymous = await t.request('GET', `/api/v1/page/${res.body._id}`, { key: null });
    const shown = anonymous.body.body.items[0]._image[0];
    assert.equal(shown.alt, 'A "red" <box>');
    assert.deepEqual(shown.attachment._urls, widget._image[0].attachment._urls);
    assert.equal(shown.archived, undefined, 'through the image type\'s public projection');
  });

  it('renders an <img> with srcset and alt, and the caption, escaped', async () => {
    const created = await pageWith({ type: '@cms/image', _image: [image._id], caption: 'Red & <b>bold</b>' });
    const urls = created.body.body.items[0]._image[0].attachment._urls;
    const srcset = `${urls.max} 600w, ${urls['one-half']} 570w, ${urls['one-third']} 380w, ${urls['one-sixth']} 190w`;
    const figure =
      `<figure class="cms-image-widget"><img src="${urls.full}" srcset="${srcset}" alt="A &quot;red&quot; &lt;box&gt;">` +
      '<figcaption>Red &amp; &lt;b&gt;bold&lt;/b&gt;</figcaption></figure>';
    const replaced = await t.request('GET', `/api/v1/page/${created.body._id}?renderAreas=true`, { key: null });
    assert.ok(replaced.body.body._rendered.includes(figure), replaced.body.body._rendered);
    const inline = await t.request('GET', `/api/v1/page/${created.body._id}?renderAreas=inline`);
    assert.equal(inline.body.body.items[0]._rendered, figure);
  });

  it('drops an unknown image id, refuses a widget without an image, renders nothing for an archived one', async () => {
    const kept = await pageWith({ type: '@cms/image', _image: ['nosuchimage', image._id] });
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(kept.body.body.items[0].imageIds, [image.cmsDocId]);
    const none = await pageWith({ type: '@cms/image', _image: ['nosuchimage'] });
    assert.equal(none.status, 400);
    assert.equal(none.body.data.errors[0].path, 'body');
    assert.equal(none.body.data.errors[0].data.errors[0].path, '0._image');
    assert.equal(none.body.data.errors[0].data.errors[0].name, 'required');
    const two = await pageWith({ type: '@cms/image', _image: [image._id, image._id] });
    assert.equal(two.status, 200, 'repeats fold into one');

    assert.equal((await t.request('PATCH', `/api/v1/@cms/image/${image._id}?force=true`, { body: { archived: true } })).status, 200);
    const after = await t.request('GET', `/api/v1/page/${kept.body._id}?renderAreas=inline`);
    assert.deepEqual(after.body.body.items[0]._image, []);
    assert.equal(after.body.body.items[0]._rendered, '');
  });
});
