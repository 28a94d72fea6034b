import { Extension, Mark, Node, mergeAttributes } from '@tiptap/core';
import type { DOMOutputSpec } from '@tiptap/pm/model';
import { Table } from '@tiptap/extension-table';
import { TextStyle } from '@tiptap/extension-text-style';

/**
 * The tiptap pieces the starter kit lacks, shaped like the HTML the server's sanitizer keeps
 * (src/content/fields/rich-text.ts), so that what the server keeps comes back unchanged: images
 * as figures or inside text, anchors as `<span id>`, ids and names on links, style classes on
 * paragraphs and headings, tables with the original's wrapper and class, colours as spelled.
 */

/** Keeps only the classes the area allows (a pasted class would be dropped by the server anyway). */
function allowedClass(value: string | null, allowed: ReadonlySet<string>): string | null {
  const kept = (value ?? '').split(/\s+/).filter((name) => allowed.has(name));
  return kept.length ? kept.join(' ') : null;
}

/** The `<img>` attributes the server keeps; `alt` only when the image had one, so none is added. */
function imageAttributes(attrs: Record<string, unknown>): Record<string, string> {
  return { src: attrs.src as string, ...(attrs.alt !== null && { alt: attrs.alt as string }) };
}

// The server drops a `src` of another scheme (`data:`, `blob:`, …) or leaving the site without
// one (`//host/x`): a pasted image of that kind is no image the server would keep.
const sourceTheServerDrops = /^\s*(?:\/\/|(?!https?:)[a-z][a-z0-9+.-]*:)/i;

/** The image's `src` when the server keeps it, else null. */
function keptSource(img: Element | null): string | null {
  const src = img?.getAttribute('src');
  return src && !sourceTheServerDrops.test(src) ? src : null;
}

const imageAttributeSpecs = () => ({
  src: { default: null, rendered: false },
  alt: { default: null, rendered: false },
});

// The attributes the server keeps on a link around an image (src/content/fields/rich-text.ts).
const imageLinkAttributes = ['href', 'name', 'title', 'rel', 'target'];

/** The link an image sits in, as its attributes, or null. */
function linkAround(img: Element): Record<string, string> | null {
  const anchor = img.parentElement;
  if (anchor?.tagName !== 'A') return null;
  const kept = imageLinkAttributes.filter((name) => anchor.hasAttribute(name)).map((name) => [name, anchor.getAttribute(name)!]);
  return Object.fromEntries(kept);
}

/**
 * An `@cms/image` piece shown in rich text through its `/src` redirect; the server collects its id.
 * Kept as the original's image tool writes it: `<figure class><a …><img src alt></a><figcaption>`,
 * the link and the caption (plain text, as the original's) only when it has them.
 */
export const FigureImage = Node.create<{ imageClasses: ReadonlySet<string> }>({
  name: 'figureImage',
  group: 'block',
  atom: true,
  draggable: true,
  addOptions: () => ({ imageClasses: new Set<string>() }),
  addAttributes: () => ({
    ...imageAttributeSpecs(),
    class: { default: null, rendered: false },
    link: { default: null, rendered: false },
    caption: { default: null, rendered: false },
  }),
  parseHTML() {
    return [
      {
        tag: 'figure',
        getAttrs: (element) => {
          const img = element.querySelector('img');
          const src = keptSource(img);
          if (!img || !src) return false;
          return {
            src,
            alt: img.getAttribute('alt'),
            class: allowedClass(element.getAttribute('class'), this.options.imageClasses),
            link: linkAround(img),
            caption: element.querySelector('figcaption')?.textContent ?? null,
          };
        },
      },
    ];
  },
  renderHTML({ node }) {
    const figure = node.attrs.class ? { class: node.attrs.class as string } : {};
    const img: DOMOutputSpec = ['img', imageAttributes(node.attrs)];
    const link = node.attrs.link as Record<string, string> | null;
    const caption = node.attrs.caption as string | null;
    return ['figure', figure, link ? ['a', link, img] : img, ...(caption === null ? [] : [['figcaption', caption]])];
  },
});

/**
 * An image inside a line of text (`<p>… <img src alt> …</p>`), as the server keeps it when an API
 * client writes one: shown and kept, never dropped. A link around it is the link mark's.
 */
export const InlineImage = Node.create({
  name: 'inlineImage',
  group: 'inline',
  inline: true,
  atom: true,
  draggable: true,
  addAttributes: imageAttributeSpecs,
  parseHTML: () => [
    {
      tag: 'img[src]',
      getAttrs: (element) => {
        const src = keptSource(element);
        return src ? { src, alt: element.getAttribute('alt') } : false;
      },
    },
  ],
  renderHTML: ({ node }) => ['img', imageAttributes(node.attrs)],
});

/** A named place to link to (`#name`): the original's anchor tool, kept by the server as `<span id>`. */
export const Anchor = Mark.create({
  name: 'anchor',
  excludes: '',
  addAttributes: () => ({
    id: {
      default: null,
      parseHTML: (element) => element.getAttribute('id') ?? element.getAttribute('data-anchor'),
    },
  }),
  parseHTML: () => [{ tag: 'span[id]' }, { tag: 'span[data-anchor]' }],
  renderHTML: ({ HTMLAttributes }) => ['span', mergeAttributes(HTMLAttributes), 0],
});

/** `class` on paragraphs and headings, for `styles` entries that carry one. */
export const StyleClass = Extension.create<{ classes: ReadonlySet<string> }>({
  name: 'styleClass',
  addOptions: () => ({ classes: new Set<string>() }),
  addGlobalAttributes() {
    return [
      {
        types: ['paragraph', 'heading'],
        attributes: {
          class: {
            default: null,
            parseHTML: (element) => allowedClass(element.getAttribute('class'), this.options.classes),
            renderHTML: (attributes) => (attributes.class ? { class: attributes.class as string } : {}),
          },
        },
      },
    ];
  },
});

/** `id` and `name` on links (the original's link schema), which the link extension would drop. */
export const LinkNames = Extension.create({
  name: 'linkNames',
  addGlobalAttributes: () => [{ types: ['link'], attributes: { id: { default: null }, name: { default: null } } }],
});

/**
 * Text style spans written with their `style` as it is: ProseMirror sets `style` through the
 * browser's CSS, which rewrites `#ff0000` as `rgb(255, 0, 0)`, so a colour would change spelling
 * on every edit.
 */
export const VerbatimTextStyle = TextStyle.extend({
  renderHTML({ HTMLAttributes }) {
    const span = document.createElement('span');
    for (const [name, value] of Object.entries(mergeAttributes(this.options.HTMLAttributes, HTMLAttributes))) {
      if (value !== null && value !== undefined) span.setAttribute(name, String(value));
    }
    return { dom: span, contentDOM: span };
  },
});

/** The classes the original's table tool writes, which the server allows (`tableClasses` there). */
const tableClasses: ReadonlySet<string> = new Set(['cms-rich-text-table']);

/** Tables keep the original's `<div class="tableWrapper">` and table class when they have them. */
export const KeptTable = Table.extend({
  addAttributes() {
    return {
      ...this.parent?.(),
      class: { default: null, parseHTML: (element) => allowedClass(element.getAttribute('class'), tableClasses) },
      wrapped: {
        default: false,
        rendered: false,
        parseHTML: (element) => element.parentElement?.matches('div.tableWrapper') ?? false,
      },
    };
  },
  renderHTML(props) {
    const table = this.parent!(props);
    return props.node.attrs.wrapped ? ['div', { class: 'tableWrapper' }, table] : table;
  },
});
