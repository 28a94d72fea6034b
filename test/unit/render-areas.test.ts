import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SanitizedField } from '../../src/content/types/piece-type.js';
import { AreaRenderer } from '../../src/content/rendering/area-renderer.js';
import { createFieldTypeRegistry } from '../../src/content/fields/registry.js';
import { imageWidgetRenderer } from '../../src/content/rendering/widget-renderers.js';

function field(name: string, type: string, extra: Partial<SanitizedField> = {}): SanitizedField {
  return { name, type, label: name, required: false, options: {}, fields: [], ...extra };
}

const widgetTypes = new Map<string, { fields: SanitizedField[] }>([
  ['@cms/rich-text', { fields: [] }],
  [
    'quote',
    {
      fields: [
        field('text', 'string'),
        field('stars', 'integer'),
        field('tags', 'checkboxes'),
        field('secret', 'password'),
        field('links', 'array', { fields: [field('label', 'string')] }),
        field('body', 'area'),
      ],
    },
  ],
]);

const renderer = new AreaRenderer(widgetTypes, createFieldTypeRegistry());

function richText(id: string, content: string) {
  return { _id: id, metaType: 'widget', type: '@cms/rich-text', content, _docId: 'd1' };
}

function area(id: string, items: unknown[]) {
  return { _id: id, metaType: 'area', items, _docId: 'd1', _edit: true };
}

function sampleDoc() {
  return {
    _id: 'd1:en:published',
    metaType: 'doc',
    title: 'T',
    body: area('a1', [richText('w1', '<p>Hi</p>')]),
    steps: [{ _id: 's1', metaType: 'arrayItem', note: area('a2', [richText('w2', '<p>Step</p>')]) }],
    _related: [{ _id: 'r1', metaType: 'doc', body: area('a3', [richText('w3', '<p>Other</p>')]) }],
  };
}

/** The original's area and rich-text templates for a reader, whitespace included, `apos-` renamed `cms-`. */
const areaHtml = (widgets: string) => `<div \n  class="cms-area"\n  >${widgets}</div>`;
const richHtml = (content: string) => `\n<div data-rich-text>\n  ${content}\n</div>\n`;

describe('area rendering', () => {
  it('replaces each outermost area by its HTML, leaving `_` properties alone and the input unchanged', () => {
    const doc = sampleDoc();
    const before = structuredClone(doc);
    const out = renderer.renderDocument(doc, 'replace') as any;
    assert.deepEqual(out.body, {
      _id: 'a1',
      metaType: 'area',
      _docId: 'd1',
      _edit: true,
      _rendered: areaHtml(richHtml('<p>Hi</p>')),
    });
    assert.match(out.steps[0].note._rendered, /<p>Step<\/p>/);
    assert.equal(out.steps[0].note.items, undefined);
    assert.deepEqual(out._related, before._related, 'related documents are not rendered');
    assert.equal(out.title, 'T');
    assert.deepEqual(doc, before);
  });

  it('inline keeps the items and gives every widget its own HTML', () => {
    const out = renderer.renderDocument(sampleDoc(), 'inline') as any;
    assert.equal(out.body._rendered, undefined);
    assert.deepEqual(out.body.items, [{ ...richText('w1', '<p>Hi</p>'), _rendered: richHtml('<p>Hi</p>') }]);
    assert.equal(out.steps[0].note.items[0]._rendered, richHtml('<p>Step</p>'));
    assert.equal(out._related[0].body.items[0]._rendered, undefined);
  });

  it('escapes every value of a custom widget and renders its nested areas once, within it', () => {
    const quote = {
      _id: 'q"1',
      metaType: 'widget',
      type: 'quote',
      text: '<script>alert("x")</script>',
      stars: 5,
      tags: ['a&b', 'c'],
      secret: 'hidden',
      links: [{ _id: 'l1', metaType: 'arrayItem', label: '<b>L</b>' }],
      body: area('inner', [richText('w9', '<p>Inner</p>')]),
    };
    const out = renderer.renderDocument({ _id: 'd1', body: area('a1', [quote]) }, 'replace') as any;
    const html: string = out.body._rendered;
    assert.ok(!html.includes('<script>'), html);
    assert.ok(!html.includes('hidden'), 'password fields are never rendered');
    assert.equal(
      html,
      areaHtml('<div class="cms-widget cms-widget--quote">'
        + '<div class="cms-widget__field" data-field="text">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</div>'
        + '<div class="cms-widget__field" data-field="stars">5</div>'
        + '<div class="cms-widget__field" data-field="tags">a&amp;b, c</div>'
        + '<div class="cms-widget__field" data-field="links"><div class="cms-widget__item">'
        + '<div class="cms-widget__field" data-field="label">&lt;b&gt;L&lt;/b&gt;</div></div></div>'
        + `<div class="cms-widget__field" data-field="body">${areaHtml(richHtml('<p>Inner</p>'))}</div></div>`),
    );
  });

  it('renders nothing for widgets of unconfigured types', () => {
    const stale = { _id: 'x', metaType: 'widget', type: 'gone', text: 'old' };
    const replaced = renderer.renderDocument({ body: area('a1', [stale]) }, 'replace') as any;
    assert.equal(replaced.body._rendered, areaHtml(''));
    const inlined = renderer.renderDocument({ body: area('a1', [stale]) }, 'inline') as any;
    assert.equal(inlined.body.items[0]._rendered, '');
  });
});

describe('image widget rendering', () => {
  const sizes = [
    { name: 'max', width: 1600 },
    { name: 'full', width: 1140 },
    { name: 'one-half', width: 570 },
    { name: 'one-sixth', width: 190 },
  ];
  const render = imageWidgetRenderer(sizes);
  const ctx = { fields: [], fieldTypes: createFieldTypeRegistry(), renderArea: () => '' };
  const urls = (ext: string) => Object.fromEntries([...sizes.map((s) => [s.name, `/u/i.${s.name}.${ext}`]), ['original', `/u/i.${ext}`]]);

  it('lists the sizes narrower than the image and the first one at least as wide, of the crop when there is one', () => {
    const attachment = { _isCroppable: true, width: 1200, _urls: urls('png') };
    const html = render({ type: '@cms/image', _image: [{ alt: 'x', attachment }] }, ctx);
    const srcset = '/u/i.max.png 1200w, /u/i.full.png 1140w, /u/i.one-half.png 570w, /u/i.one-sixth.png 190w';
    assert.equal(html, `<figure class="cms-image-widget"><img src="/u/i.full.png" srcset="${srcset}" alt="x"></figure>`);
    const cropped = render({ type: '@cms/image', _image: [{ attachment: { ...attachment, crop: { width: 300 } } }] }, ctx);
    assert.match(cropped, /srcset="\/u\/i\.max\.png 300w, \/u\/i\.one-sixth\.png 190w" alt=""/);
  });

  it('gives an unsized image (SVG) no srcset, and renders nothing without a loaded image', () => {
    const svg = render({ type: '@cms/image', _image: [{ attachment: { _isCroppable: false, _urls: urls('svg') } }], caption: 'c' }, ctx);
    assert.equal(svg, '<figure class="cms-image-widget"><img src="/u/i.full.svg" alt=""><figcaption>c</figcaption></figure>');
    assert.equal(render({ type: '@cms/image', _image: [], caption: 'c' }, ctx), '');
    assert.equal(render({ type: '@cms/image', imageIds: ['x'] }, ctx), '');
  });
});
