import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { keys, startTestApp, type TestApp } from '../helpers/test-app.js';

/** A `post` type whose rich text offers links, anchors, images and one image style. */
function config(): Record<string, unknown> {
  const richText = { toolbar: ['link', 'anchor'], insert: ['image'], imageStyles: [{ value: 'image-float-left', label: 'Float left' }] };
  return {
    apiKeys: { [keys.admin]: { role: 'admin' } },
    modules: {
      post: {
        extend: '@cms/piece-type',
        options: { label: 'Post' },
        fields: { add: { body: { type: 'area', options: { widgets: { '@cms/rich-text': richText } } } } },
      },
    },
  };
}

describe('rich text safety through the API', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(config());
  });
  after(() => t.close());

  it('stores links with a target as noopener noreferrer, only safe anchors and only configured classes', async () => {
    const content = [
      '<p><a href="https://example.com" target="_blank" rel="nofollow">out</a>',
      '<span id="cookie">c</span><span data-anchor="forms">f</span><span data-anchor="install">i</span>',
      '<a href="/x" name="location">l</a></p>',
      '<figure class="image-float-left sneaky"><img src="/a.png" alt="" /></figure>',
    ].join('');
    const created = await t.request('POST', '/api/v1/post', { body: { title: 'Safe', body: { metaType: 'area', items: [{ type: '@cms/rich-text', content }] } } });
    assert.equal(created.status, 200, created.text);
    const read = await t.request('GET', `/api/v1/post/${created.body._id}`);
    assert.equal(read.status, 200);
    assert.equal(
      read.body.body.items[0].content,
      [
        '<p><a href="https://example.com" target="_blank" rel="nofollow noopener noreferrer">out</a>',
        '<span>c</span><span>f</span><span id="install">i</span>',
        '<a href="/x">l</a></p>',
        '<figure class="image-float-left"><img src="/a.png" alt="" /></figure>',
      ].join(''),
    );
  });
});
