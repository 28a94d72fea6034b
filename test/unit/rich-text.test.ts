import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DefinitionContext } from '../../src/content/fields/field-type.js';
import type { SanitizedField } from '../../src/content/types/piece-type.js';
import { ConfigError } from '../../src/errors/app-error.js';
import { createFieldTypeRegistry } from '../../src/content/fields/registry.js';
import { checkAreaOptions, richTextOptionsOf } from '../../src/content/fields/area-options.js';
import {
  compileRichTextRules,
  defaultRichTextOptions,
  richTextPlainText,
  sanitizeRichText,
  type RichTextOptions,
} from '../../src/content/fields/rich-text.js';

function rules(options: Partial<RichTextOptions>) {
  return compileRichTextRules({ ...defaultRichTextOptions, ...options });
}

function clean(html: string, options: Partial<RichTextOptions> = {}): string {
  return sanitizeRichText(html, rules(options)).content;
}

const definitionContext: DefinitionContext = {
  path: 'modules.article.fields.add.body',
  pieceTypes: new Set(['article']),
  widgetTypes: new Set(['@cms/rich-text']),
  sanitizeFields: () => [],
};

function richTextArea(options: unknown): Record<string, unknown> {
  return { type: 'area', options: { widgets: { '@cms/rich-text': options } } };
}

function assertConfigError(options: unknown, path: string): void {
  assert.throws(
    () => checkAreaOptions(richTextArea(options), definitionContext),
    (e: unknown) => e instanceof ConfigError && e.path === `modules.article.fields.add.body.options.widgets.@cms/rich-text.${path}`,
  );
}

describe('rich text sanitizer options', () => {
  it('defaults to what the original default toolbar, styles and insert menu produce', () => {
    const html = '<h2>T</h2><p><b>b</b><em>e</em><s>s</s><u>u</u><sup>1</sup><sub>2</sub></p><blockquote>q</blockquote>'
      + '<ul><li>l</li></ul><hr /><table><tr><td colspan="2">c</td></tr></table><figure class="x"><img src="/a.png" alt="A" /></figure>';
    assert.equal(clean(html), html.replace('<figure class="x">', '<figure>'), 'no image style is configured by default');
    assert.equal(clean('<pre><code>x</code></pre><h7>y</h7>'), 'xy', 'codeBlock is not in the default toolbar');
  });

  it('drops tags and attributes a restricted toolbar does not offer, keeping their text', () => {
    const options = { toolbar: ['bold', 'link'], insert: [] };
    assert.equal(
      clean('<h2>Head</h2><p style="text-align:center"><b>b</b> <i>i</i> <a href="/x" title="t" target="_blank">a</a></p><img src="/a.png" /><table><tr><td>c</td></tr></table>', options),
      'Head<p><b>b</b> i <a href="/x" title="t" target="_blank" rel="noopener noreferrer">a</a></p>c',
    );
  });

  it('keeps only the style properties and values of the enabled tools', () => {
    const html = '<p style="text-align:justify;color:#ff0000;position:fixed">x</p><p style="color:var(--brand)">y</p>';
    assert.equal(clean(html), '<p style="color:#ff0000">x</p><p style="color:var(--brand)">y</p>');
    assert.equal(clean(html, { toolbar: ['alignJustify'] }), '<p style="text-align:justify">x</p><p>y</p>');
    assert.equal(clean('<table style="width:100px"><tr><td>c</td></tr></table>'), '<table style="width:100px"><tr><td>c</td></tr></table>');
    assert.equal(clean('<table style="width:100px url(x)"><tr><td>c</td></tr></table>'), '<table><tr><td>c</td></tr></table>');
  });

  it('allows the tags of configured styles and only their classes', () => {
    const options = { toolbar: ['styles'], styles: [{ tag: 'h3', label: 'Big', class: 'big loud' }, { tag: 'p', label: 'P' }] };
    assert.equal(
      clean('<h3 class="big evil loud">T</h3><h2>no</h2><p class="big">x</p>', options),
      '<h3 class="big loud">T</h3>no<p>x</p>',
    );
    assert.equal(clean('<h3>T</h3>', { toolbar: ['bold'], styles: options.styles }), 'T', 'styles apply only with the styles tool');
  });

  it('removes scripts, event handlers and javascript: or protocol-relative URLs', () => {
    const html = '<p onclick="x()">a<script>alert(1)</script><style>p{}</style>'
      + '<a href="javascript:alert(1)">j</a><a href="//evil.test/x">r</a><a href="mailto:a@b.c">m</a></p>'
      + '<img src="javascript:alert(1)" onerror="x()" /><iframe src="https://x"></iframe>';
    assert.equal(clean(html), '<p>a<a>j</a><a>r</a><a href="mailto:a@b.c">m</a></p><img />');
  });

  it('turns data-anchor into an id on the first element allowed one', () => {
    const html = '<p><span data-anchor="intro">a</span><span data-anchor="intro">b</span>'
      + '<span data-anchor="cms-x">c</span><a href="/x" data-anchor="more">d</a><b data-anchor="bold">e</b></p>';
    assert.equal(
      clean(html),
      '<p><span id="intro">a</span><span>b</span><span>c</span><a href="/x" id="more">d</a><b>e</b></p>',
    );
    assert.equal(clean('<p><span data-anchor="x">a</span></p>', { toolbar: ['bold'] }), '<p>a</p>');
  });

  it('gives every link with a target rel="noopener noreferrer", merged with its own rel', () => {
    assert.equal(clean('<p><a href="/x" target="_blank">a</a></p>'), '<p><a href="/x" target="_blank" rel="noopener noreferrer">a</a></p>');
    assert.equal(
      clean('<p><a href="/x" rel="nofollow noopener" target=" _BLANK ">a</a></p>'),
      '<p><a href="/x" target="_blank" rel="nofollow noopener noreferrer">a</a></p>',
    );
    assert.equal(clean('<p><a href="/x" target="_self" rel="opener">a</a></p>'), '<p><a href="/x" target="_self" rel="noopener noreferrer">a</a></p>');
    assert.equal(clean('<p><a href="/x" target="other-window">a</a></p>'), '<p><a href="/x">a</a></p>', 'named targets reach other windows');
    assert.equal(clean('<p><a href="/x" rel="nofollow">a</a></p>'), '<p><a href="/x" rel="nofollow">a</a></p>', 'no target, rel as given');
  });

  it('keeps only ids and link names that are safe anchors: no DOM clobbering', () => {
    const html = '<p><span id="Intro-2">a</span><a href="/x" name="section_3">b</a></p>';
    assert.equal(clean(html), html);
    const clobbering = ['cookie', 'location', 'forms', 'body', 'CONSTRUCTOR', '__proto__', 'getElementById', 'config', 'documentElement', 'cms-x'];
    for (const name of clobbering) {
      assert.equal(clean(`<p><span id="${name}">a</span><a name="${name}" href="/x">b</a></p>`), '<p><span>a</span><a href="/x">b</a></p>', name);
      assert.equal(clean(`<p><span data-anchor="${name}">a</span></p>`), '<p><span>a</span></p>', name);
    }
    const malformed = ['a b', '1st', '-x', 'x"y', 'é', 'a'.repeat(65), ''];
    for (const name of malformed) assert.equal(clean(`<p><span id='${name}'>a</span></p>`), '<p><span>a</span></p>', name);
  });

  it('keeps only configured classes: figure classes come from imageStyles', () => {
    const imageStyles = [{ value: 'image-float-left', label: 'Left' }];
    const html = '<figure class="image-float-left evil"><img src="/a.png" /></figure>';
    assert.equal(clean(html, { imageStyles }), '<figure class="image-float-left"><img src="/a.png" /></figure>');
    assert.equal(clean(html), '<figure><img src="/a.png" /></figure>');
    assert.equal(
      clean('<div class="tableWrapper x"><table class="cms-rich-text-table y"><tr><td class="z">c</td></tr></table></div>'),
      '<div class="tableWrapper"><table class="cms-rich-text-table"><tr><td>c</td></tr></table></div>',
    );
  });

  it('collects permalink and image ids from the sanitized content', () => {
    const value = sanitizeRichText(
      '<p><a href="#cms-permalink-doc1?updateTitle=1">one</a> <a href="#cms-permalink-doc2">two</a>'
        + ' <a href="#cms-permalink-doc1?updateTitle=0">again</a> <a href="#other">no</a>'
        + ' /api/v1/@cms/image/inText/src</p>'
        + '<figure><img src="/api/v1/@cms/image/img1/src" alt="" /></figure>'
        + '<figure><img src="https://cms.test/api/v1/@cms/image/img2/src?x=1" /></figure>',
    );
    assert.deepEqual(value.permalinkIds, ['doc1', 'doc2']);
    assert.deepEqual(value.imageIds, ['img1', 'img2']);
    assert.deepEqual(sanitizeRichText('<p>plain</p>'), { content: '<p>plain</p>', permalinkIds: [], imageIds: [] });
  });

  it('reads area options with per-key defaults, from widgets or groups', () => {
    const fromWidgets = richTextOptionsOf({ options: { widgets: { '@cms/rich-text': { toolbar: ['bold'] } } } });
    assert.deepEqual(fromWidgets, { ...defaultRichTextOptions, toolbar: ['bold'] });
    const fromGroups = richTextOptionsOf({ options: { groups: { text: { widgets: { '@cms/rich-text': { insert: [] } } } } } });
    assert.deepEqual(fromGroups.insert, []);
    assert.deepEqual(richTextOptionsOf({}), defaultRichTextOptions);
  });
});

describe('rich text options at boot', () => {
  it('accepts the original toolbar, insert and styles vocabulary', () => {
    checkAreaOptions(richTextArea({ toolbar: ['styles', '|', 'codeBlock', 'alignJustify'], insert: ['table'], styles: [{ tag: 'h2', label: 'H', class: 'a b' }] }), definitionContext);
    checkAreaOptions(richTextArea({ placeholder: false }), definitionContext);
    checkAreaOptions(richTextArea({ imageStyles: [{ value: 'image-float-left', label: 'Float left' }] }), definitionContext);
  });

  it('names the key path of unknown items and malformed styles', () => {
    assertConfigError({ toolbar: ['bold', 'blink'] }, 'toolbar.1');
    assertConfigError({ toolbar: 'bold' }, 'toolbar');
    assertConfigError({ insert: ['bold'] }, 'insert.0');
    assertConfigError({ styles: {} }, 'styles');
    assertConfigError({ styles: [{ tag: 'p', label: 'P' }, 'h2'] }, 'styles.1');
    assertConfigError({ styles: [{ tag: 'script', label: 'S' }] }, 'styles.0.tag');
    assertConfigError({ styles: [{ tag: 'p' }] }, 'styles.0.label');
    assertConfigError({ styles: [{ tag: 'p', label: 'P', class: 'a "b' }] }, 'styles.0.class');
    assertConfigError({ styles: [{ tag: 'p', label: 'P', style: 'x' }] }, 'styles.0.style');
    assertConfigError({ toolbars: [] }, 'toolbars');
    assertConfigError({ imageStyles: {} }, 'imageStyles');
    assertConfigError({ imageStyles: [{ value: 'a b', label: 'x' }] }, 'imageStyles.0.value');
    assertConfigError({ imageStyles: [{ value: 'a', label: 'x', class: 'y' }] }, 'imageStyles.0.class');
  });
});

describe('rich text in an area field', () => {
  const registry = createFieldTypeRegistry();
  const area = registry.get('area')!;
  const field: SanitizedField = { name: 'body', type: 'area', label: 'Body', required: false, options: {}, fields: [] };

  it('gives the plain text of rich text, blocks and cells kept apart, for low-weight search', () => {
    assert.equal(richTextPlainText('<h2>Title</h2><p>one&amp;two<br />three</p><ul><li>a</li><li>b</li></ul>'), 'Title\none&two\nthree\na\nb');
    assert.equal(richTextPlainText('<table><tr><td>x</td><td>y</td></tr></table>'), 'x y');
    // Read from the sanitizer's own output: attribute values with `>` in them, entities, links.
    const sanitized = sanitizeRichText('<p><a href="https://example.com/?a=1&b=2" title="a>b">link</a> 1 &lt; 2 &amp;&amp; "q"</p>').content;
    assert.equal(richTextPlainText(sanitized), 'link 1 < 2 && "q"');
    const value = {
      metaType: 'area',
      items: [
        { type: '@cms/rich-text', content: '<p>Hello <b>world</b></p><p>again</p>' },
        { type: 'hero', heading: 'not searched', body: { metaType: 'area', items: [{ type: '@cms/rich-text', content: '<p>nested</p>' }] } },
      ],
    };
    assert.deepEqual(area.searchTexts!(value, field), [
      { text: 'Hello world\nagain', weight: 'low' },
      { text: 'nested', weight: 'low' },
    ]);
    assert.deepEqual(area.searchTexts!(null, field), []);
  });
});
