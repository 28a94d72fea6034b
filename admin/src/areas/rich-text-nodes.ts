import { Extension, Mark, Node, mergeAttributes } from '@tiptap/core';

/**
 * The tiptap pieces the starter kit lacks, shaped like the HTML the server's sanitizer keeps
 * (src/content/fields/rich-text.ts): images as `<figure><img src alt></figure>`, anchors as
 * `<span id>`, style classes on paragraphs and headings.
 */

/** Keeps only the classes the area allows (a pasted class would be dropped by the server anyway). */
function allowedClass(value: string | null, allowed: ReadonlySet<string>): string | null {
  const kept = (value ?? '').split(/\s+/).filter((name) => allowed.has(name));
  return kept.length ? kept.join(' ') : null;
}

/** An `@cms/image` piece shown in rich text through its `/src` redirect; the server collects its id. */
export const FigureImage = Node.create<{ imageClasses: ReadonlySet<string> }>({
  name: 'figureImage',
  group: 'block',
  atom: true,
  draggable: true,
  addOptions: () => ({ imageClasses: new Set<string>() }),
  addAttributes: () => ({
    src: { default: null, rendered: false },
    alt: { default: '', rendered: false },
    class: { default: null, rendered: false },
  }),
  parseHTML() {
    return [
      {
        tag: 'figure',
        getAttrs: (element) => {
          const img = element.querySelector('img');
          if (!img?.getAttribute('src')) return false;
          return { src: img.getAttribute('src'), alt: img.getAttribute('alt') ?? '', class: allowedClass(element.getAttribute('class'), this.options.imageClasses) };
        },
      },
    ];
  },
  renderHTML({ node }) {
    const figure = node.attrs.class ? { class: node.attrs.class as string } : {};
    return ['figure', figure, ['img', { src: node.attrs.src as string, alt: node.attrs.alt as string }]];
  },
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
