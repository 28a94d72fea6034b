import type { Extensions } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import Subscript from '@tiptap/extension-subscript';
import Superscript from '@tiptap/extension-superscript';
import TextAlign from '@tiptap/extension-text-align';
import { Color } from '@tiptap/extension-text-style';
import { TableKit } from '@tiptap/extension-table';
import type { RichTextOptions } from './area-model';
import { Anchor, FigureImage, InlineImage, KeptTable, LinkNames, StyleClass, VerbatimTextStyle } from './rich-text-nodes';

/** The `styles` entries the editor can produce, by tag; the others are left out of the menu. */
export const styleTagKinds: Readonly<Record<string, 'paragraph' | 'heading' | 'codeBlock' | 'blockquote'>> = {
  p: 'paragraph', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
  pre: 'codeBlock', blockquote: 'blockquote',
};

export const alignments: Readonly<Record<string, string>> = {
  alignLeft: 'left', alignCenter: 'center', alignRight: 'right', alignJustify: 'justify',
};

/** Toolbar and insert items together: what the area lets an editor produce. */
export function itemsOf(options: RichTextOptions): Set<string> {
  return new Set([...options.toolbar, ...options.insert]);
}

/** The styles the menu offers: only with `styles` in the toolbar, only tags the editor can produce. */
export function usableStyles(options: RichTextOptions) {
  return options.toolbar.includes('styles') ? options.styles.filter((style) => styleTagKinds[style.tag]) : [];
}

/**
 * Exactly the extensions the allowed items need, so the editor cannot produce what the server's
 * sanitizer would strip (and pasted HTML is reduced to the same).
 */
export function richTextExtensions(options: RichTextOptions): Extensions {
  const items = itemsOf(options);
  const styles = usableStyles(options);
  const styleTags = new Set(styles.map((style) => style.tag));
  const on = (item: string) => (items.has(item) ? {} : false);
  const levels = [1, 2, 3, 4, 5, 6].filter((level) => styleTags.has(`h${level}`)) as (1 | 2 | 3 | 4 | 5 | 6)[];
  const lists = items.has('bulletList') || items.has('orderedList');
  const alignTo = Object.entries(alignments).filter(([item]) => items.has(item)).map(([, value]) => value);
  const styleClasses = new Set(styles.flatMap((style) => style.class?.split(/\s+/).filter(Boolean) ?? []));

  const extensions: Extensions = [
    StarterKit.configure({
      bold: on('bold'),
      italic: on('italic'),
      strike: on('strike'),
      underline: on('underline'),
      code: on('code'),
      codeBlock: items.has('codeBlock') || styleTags.has('pre') ? {} : false,
      blockquote: items.has('blockquote') || styleTags.has('blockquote') ? {} : false,
      heading: levels.length ? { levels } : false,
      bulletList: on('bulletList'),
      orderedList: on('orderedList'),
      listItem: lists ? {} : false,
      listKeymap: lists ? {} : false,
      horizontalRule: on('horizontalRule'),
      // No target or rel by default: "open in a new tab" is the link dialog's choice.
      link: items.has('link') ? { openOnClick: false, autolink: false, HTMLAttributes: { target: null, rel: null } } : false,
    }),
  ];
  if (items.has('subscript')) extensions.push(Subscript);
  if (items.has('superscript')) extensions.push(Superscript);
  if (alignTo.length) extensions.push(TextAlign.configure({ types: ['heading', 'paragraph'], alignments: alignTo }));
  if (items.has('link')) extensions.push(LinkNames);
  if (items.has('color')) extensions.push(VerbatimTextStyle, Color);
  if (items.has('table')) extensions.push(TableKit.configure({ table: false }), KeptTable.configure({ resizable: false }));
  if (items.has('image')) {
    extensions.push(FigureImage.configure({ imageClasses: new Set(options.imageStyles.map((style) => style.value)) }), InlineImage);
  }
  if (items.has('anchor')) extensions.push(Anchor);
  if (styleClasses.size) extensions.push(StyleClass.configure({ classes: styleClasses }));
  return extensions;
}
