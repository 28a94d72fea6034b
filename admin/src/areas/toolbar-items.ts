import type { Editor } from '@tiptap/core';
import { alignments } from './rich-text-extensions';

/** A toolbar button that runs one editor command; `toggle` buttons report their state (aria-pressed). */
export interface CommandItem {
  readonly name: string;
  /** The catalogue key of its name, `toolbar.<name>`. */
  readonly labelKey: string;
  /** What the button shows; screen readers get `label`. */
  readonly glyph: string;
  readonly toggle: boolean;
  readonly isActive: (editor: Editor) => boolean;
  readonly run: (editor: Editor) => void;
}

const mark = (name: string, glyph: string): CommandItem => ({
  name, labelKey: `toolbar.${name}`, glyph, toggle: true,
  isActive: (editor) => editor.isActive(name),
  run: (editor) => void editor.chain().focus().toggleMark(name).run(),
});

const action = (name: string, glyph: string, run: (editor: Editor) => void): CommandItem => ({
  name, labelKey: `toolbar.${name}`, glyph, toggle: false, isActive: () => false, run,
});

const alignGlyphs: Readonly<Record<string, string>> = { alignLeft: '⇤', alignCenter: '↔', alignRight: '⇥', alignJustify: '☰' };

const alignItems = Object.entries(alignments).map(([name, value]): CommandItem => ({
  name, labelKey: `toolbar.${name}`, glyph: alignGlyphs[name]!, toggle: true,
  isActive: (editor) => editor.isActive({ textAlign: value }),
  run: (editor) => void editor.chain().focus().setTextAlign(value).run(),
}));

/** Items that are a single command; `styles`, `color`, `link`, `anchor` and `image` have their own controls. */
export const commandItems: ReadonlyMap<string, CommandItem> = new Map(
  [
    mark('bold', 'B'),
    mark('italic', 'I'),
    mark('strike', 'S'),
    mark('underline', 'U'),
    mark('subscript', 'x₂'),
    mark('superscript', 'x²'),
    mark('code', '</>'),
    { ...mark('blockquote', '❝'), run: (editor: Editor) => void editor.chain().focus().toggleBlockquote().run() },
    { ...mark('codeBlock', '{ }'), run: (editor: Editor) => void editor.chain().focus().toggleCodeBlock().run() },
    { ...mark('bulletList', '•'), run: (editor: Editor) => void editor.chain().focus().toggleBulletList().run() },
    { ...mark('orderedList', '1.'), run: (editor: Editor) => void editor.chain().focus().toggleOrderedList().run() },
    ...alignItems,
    action('horizontalRule', '―', (editor) => void editor.chain().focus().setHorizontalRule().run()),
    action('table', '▦', (editor) => void editor.chain().focus().insertTable({ rows: 3, cols: 3, withHeaderRow: true }).run()),
    action('undo', '↶', (editor) => void editor.chain().focus().undo().run()),
    action('redo', '↷', (editor) => void editor.chain().focus().redo().run()),
  ].map((item) => [item.name, item]),
);

/** Shown while the cursor is in a table (the table tool's own editing commands). */
export const tableItems: readonly CommandItem[] = [
  action('addRowAfter', '+row', (editor) => void editor.chain().focus().addRowAfter().run()),
  action('addColumnAfter', '+col', (editor) => void editor.chain().focus().addColumnAfter().run()),
  action('deleteRow', '−row', (editor) => void editor.chain().focus().deleteRow().run()),
  action('deleteColumn', '−col', (editor) => void editor.chain().focus().deleteColumn().run()),
  action('deleteTable', '×table', (editor) => void editor.chain().focus().deleteTable().run()),
];

/** Controls of the toolbar in order: known items of `toolbar`, then `insert` items not already there. */
export function toolbarEntries(toolbar: readonly string[], insert: readonly string[]): string[] {
  const special = new Set(['styles', 'color', 'link', 'anchor', 'image', '|']);
  const known = (name: string) => special.has(name) || commandItems.has(name);
  const entries = toolbar.filter(known);
  const extra = insert.filter((name) => known(name) && !entries.includes(name));
  if (extra.length) entries.push('|', ...extra);
  // No separator at either end or twice in a row, whatever was left out.
  return entries.filter((name, index) => name !== '|' || (index > 0 && index < entries.length - 1 && entries[index - 1] !== '|'));
}
