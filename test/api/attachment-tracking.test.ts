import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { makeImage, uploaded } from '../helpers/media.js';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import { withOptionalOptions } from '../../src/storage/transaction-queue.js';

/** `gallery` holds attachments at every depth: top level, array items, an object, widgets in an area. */
function trackingConfig(): Record<string, unknown> {
  const config = testConfig();
  const modules = config.modules as Record<string, unknown>;
  return {
    ...config,
    widgets: { photo: { fields: { add: { image: { type: 'attachment', fileGroups: ['images'] }, caption: { type: 'string' } } } } },
    modules: {
      ...modules,
      gallery: {
        extend: '@cms/piece-type',
        options: { label: 'Gallery' },
        fields: {
          add: {
            hero: { type: 'attachment' },
            slides: { type: 'array', fields: { add: { image: { type: 'attachment' } } } },
            meta: { type: 'object', fields: { add: { cover: { type: 'attachment' } } } },
            body: { type: 'area', options: { widgets: { photo: {}, '@cms/rich-text': {} } } },
          },
        },
      },
    },
  };
}

describe('attachment usage tracking', () => {
  let t: TestApp;
  let adapter: StorageAdapter;
  let failUsage = false;
  const ids: Record<'hero' | 'slide' | 'cover' | 'photo', string> = { hero: '', slide: '', cover: '', photo: '' };

  before(async () => {
    const wrapStorage = (inner: StorageAdapter): StorageAdapter => {
      adapter = inner;
      return {
        ...inner,
        transaction: withOptionalOptions((options, work) =>
          inner.transaction(options, (tx) =>
            work({
              ...tx,
              attachments: {
                ...tx.attachments,
                setUsage: async (...args) => {
                  if (failUsage) throw new Error('usage write failed');
                  return tx.attachments.setUsage(...args);
                },
              },
            }),
          ),
        ),
      };
    };
    t = await startTestApp(trackingConfig(), {}, { wrapStorage });
    for (const name of Object.keys(ids) as (keyof typeof ids)[]) {
      ids[name] = (await uploaded(t, `${name}.png`, await makeImage('png', 12, 12)))._id;
    }
  });
  after(() => t.close());

  async function usage(id: string): Promise<{ docIds: string[]; archivedDocIds: string[] }> {
    const [found] = await adapter.attachments.find([id]);
    return { docIds: found!.docIds, archivedDocIds: found!.archivedDocIds };
  }

  async function usageOfAll(): Promise<Record<string, { docIds: string[]; archivedDocIds: string[] }>> {
    const result: Record<string, { docIds: string[]; archivedDocIds: string[] }> = {};
    for (const [name, id] of Object.entries(ids)) result[name] = await usage(id);
    return result;
  }

  const live = (...docIds: string[]) => ({ docIds: docIds.sort(), archivedDocIds: [] });
  const archived = (...docIds: string[]) => ({ docIds: [], archivedDocIds: docIds.sort() });

  let docId = '';
  const v = (mode: string, locale = 'en') => `${docId}:${locale}:${mode}`;

  it('records the draft of a new document as holding every attachment it has, at any depth', async () => {
    const res = await t.request('POST', '/api/v1/gallery?cmsMode=draft', {
      body: {
        title: 'Holiday',
        hero: { _id: ids.hero },
        slides: [{ image: { _id: ids.slide } }, { image: { _id: ids.slide } }],
        meta: { cover: { _id: ids.cover } },
        body: { items: [{ type: 'photo', image: { _id: ids.photo }, caption: 'Beach' }] },
      },
    });
    assert.equal(res.status, 200, res.text);
    docId = res.body.cmsDocId;
    assert.deepEqual(await usageOfAll(), { hero: live(v('draft')), slide: live(v('draft')), cover: live(v('draft')), photo: live(v('draft')) });
  });

  it('shows fresh URLs and current usage on every nested attachment', async () => {
    const res = await t.request('GET', `/api/v1/gallery/${v('draft')}`);
    assert.equal(res.status, 200, res.text);
    const nested = [res.body.hero, res.body.slides[0].image, res.body.meta.cover, res.body.body.items[0].image];
    for (const attachment of nested) {
      assert.match(attachment._url, /^http:\/\/cms\.test\/uploads\/attachments\//);
      assert.equal(typeof attachment._urls.max, 'string');
      assert.deepEqual(attachment.docIds, [v('draft')]);
      assert.equal(attachment.crop, null);
    }
  });

  it('adds the published version on publish', async () => {
    assert.equal((await t.request('POST', `/api/v1/gallery/${v('draft')}/publish`)).status, 200);
    assert.deepEqual((await usage(ids.hero)).docIds, [v('draft'), v('published')].sort());
    assert.deepEqual((await usage(ids.photo)).docIds, [v('draft'), v('published')].sort());
  });

  it('follows an update that drops an attachment, and counts the previous version after a second publish', async () => {
    const patched = await t.request('PATCH', `/api/v1/gallery/${v('draft')}`, { body: { hero: null } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(await usage(ids.hero), live(v('published')));
    assert.equal((await t.request('POST', `/api/v1/gallery/${v('draft')}/publish`)).status, 200);
    assert.deepEqual(await usage(ids.hero), live(v('previous')), 'only the previous version still holds it');
    assert.deepEqual(await usage(ids.slide), live(v('draft'), v('published'), v('previous')));
  });

  it('moves every version to archivedDocIds on archive and back on restore', async () => {
    assert.equal((await t.request('PATCH', `/api/v1/gallery/${v('draft')}`, { body: { archived: true } })).status, 200);
    assert.deepEqual(await usage(ids.slide), archived(v('draft'), v('published'), v('previous')));
    assert.deepEqual(await usage(ids.hero), archived(v('previous')));
    assert.equal((await t.request('PATCH', `/api/v1/gallery/${v('draft')}`, { body: { archived: false } })).status, 200);
    assert.deepEqual(await usage(ids.slide), live(v('draft'), v('published'), v('previous')));
  });

  it('counts a localized copy', async () => {
    const res = await t.request('POST', `/api/v1/gallery/${v('draft')}/localize`, { body: { toLocale: 'es' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await usage(ids.cover), live(v('draft'), v('published'), v('previous'), v('draft', 'es')));
  });

  it('forgets the versions that unpublish and delete remove', async () => {
    assert.equal((await t.request('POST', `/api/v1/gallery/${v('published')}/unpublish`)).status, 200);
    assert.deepEqual(await usage(ids.hero), live());
    assert.deepEqual(await usage(ids.slide), live(v('draft'), v('draft', 'es')));
    assert.equal((await t.request('DELETE', `/api/v1/gallery/${v('draft')}`)).status, 200);
    assert.equal((await t.request('DELETE', `/api/v1/gallery/${v('draft', 'es')}`)).status, 200);
    assert.deepEqual(await usageOfAll(), { hero: live(), slide: live(), cover: live(), photo: live() });
  });

  it('tracks image pieces through their whole life, revert included', async () => {
    const created = await t.request('POST', '/api/v1/@cms/image', { body: { title: 'Tracked', attachment: { _id: ids.hero } } });
    assert.equal(created.status, 200, created.text);
    docId = created.body.cmsDocId;
    assert.deepEqual(await usage(ids.hero), live(v('draft'), v('published')));
    assert.deepEqual(created.body.attachment.docIds, [v('draft'), v('published')].sort(), 'the response shows the usage just written');
    // Images autopublish: the edit publishes too, keeping the old published version as previous.
    assert.equal((await t.request('PATCH', `/api/v1/@cms/image/${v('draft')}`, { body: { attachment: { _id: ids.photo } } })).status, 200);
    assert.deepEqual(await usage(ids.hero), live(v('previous')));
    assert.deepEqual(await usage(ids.photo), live(v('draft'), v('published')));
    const reverted = await t.request('POST', `/api/v1/@cms/image/${v('published')}/revert-published-to-previous`);
    assert.equal(reverted.status, 200, reverted.text);
    assert.deepEqual(await usage(ids.hero), live(v('published')));
    assert.deepEqual(await usage(ids.photo), live(v('draft')));
    assert.equal((await t.request('PATCH', `/api/v1/@cms/image/${v('published')}`, { body: { archived: true } })).status, 200);
    assert.deepEqual(await usage(ids.hero), archived(v('published')));
    const shown = await t.request('GET', `/api/v1/@cms/image/${v('published')}?archived=any`);
    assert.deepEqual(shown.body.attachment.archivedDocIds, [v('published')]);
    assert.equal((await t.request('DELETE', `/api/v1/@cms/image/${v('published')}`)).status, 200);
    assert.deepEqual(await usage(ids.hero), live());
  });

  it('writes usage in the transaction of the document: a failure stores neither', async () => {
    const before = (await t.request('GET', '/api/v1/gallery?count=1&cmsMode=draft')).body.count;
    failUsage = true;
    try {
      const res = await t.request('POST', '/api/v1/gallery?cmsMode=draft', { body: { title: 'Never', hero: { _id: ids.hero } } });
      assert.equal(res.status, 500);
    } finally {
      failUsage = false;
    }
    assert.equal((await t.request('GET', '/api/v1/gallery?count=1&cmsMode=draft')).body.count, before);
    assert.deepEqual(await usage(ids.hero), live());
  });
});
