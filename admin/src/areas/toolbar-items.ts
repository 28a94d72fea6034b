import type { Editor } from '@tiptap/core';
import { alignments } from './rich-text-extensions';

/** A toolbar button that runs one editor command; `toggle` buttons report their state (aria-pressed). */
export interface CommandItem {
  readonly name: string;
  readonly label: string;
  /** What the button shows; screen readers get `label`. */
  readonly glyph: string;
  readonly toggle: boolean;
  readonly isActive: (editor: Editor) => boolean;
  readonly run: (editor: Editor) => void;
}

const mark = (name: string, label: string, glyph: string): CommandItem => ({
  name, label, glyph, toggle: true,
  isActive: (editor) => editor.isActive(name),
  run: (editor) => void editor.chain().focus().toggleMark(name).run(),
});

const action = (name: string, label: string, glyph: string, run: (editor: Editor) => void): CommandItem => ({
  name, label, glyph, toggle: false, isActive: () => false, run,
});

const alignLabels: Readonly<Record<string, [string, string]>> = {
  alignLeft: ['Align left', '⇤'], alignCenter: ['Align centre', '↔'], alignRight: ['Align right', '⇥'], alignJustify: ['Justify', '☰'],
};

const alignItems = Object.entries(alignments).map(([name, value]): CommandItem => ({
  name, label: alignLabels[name]![0], glyph: alignLabels[name]![1], toggle: true,
  isActive: (editor) => editor.isActive({ textAlign: value }),
  run: (editor) => void editor.chain().focus().setTextAlign(value).run(),
}));

/** Items that are a single command; `styles`, `color`, `link`, `anchor` and `image` have their own controls. */
export const commandItems: ReadonlyMap<string, CommandItem> = new Map(
  [
    mark('bold', 'Bold', 'B'),
    mark('italic', 'Italic', 'I'),
    mark('strike', 'Strikethrough', 'S'),
    mark('underline', 'Underline', 'U'),
    mark('subscript', 'Subscript', 'x₂'),
    mark('superscript', 'Superscript', 'x²'),
    mark('code', 'Inline code', '</>'),
    { ...mark('blockquote', 'Quote', '❝'), run: (editor: Editor) => void editor.chain().focus().toggleBlockquote().run() },
    { ...mark('codeBlock', 'Code block', '{ }'), run: (editor: Editor) => void editor.chain().focus().toggleCodeBlock().run() },
    { ...mark('bulletList', 'Bulleted list', '•'), run: (editor: Editor) => void editor.chain().focus().toggleBulletList().run() },
    { ...mark('orderedList', 'Numbered list', '1.'), run: (editor: Editor) => void editor.chain().focus().toggleOrderedList().run() },
    ...alignItems,
    action('horizontalRule', 'Insert horizontal rule', '―', (editor) => void editor.chain().focus().setHorizontalRule().run()),
    action('table', 'Insert table', '▦', (editor) => void editor.chain().focus().insertTable({ rows: 3, cols: 3, withHeaderRow: true }).run()),
    action('undo', 'Undo', '↶', (editor) => void editor.chain().focus().undo().run()),
    action('redo', 'Redo', '↷', (editor) => void editor.chain().focus().redo().run()),
  ].map((item) => [item.name, item]),
);

/** Shown while the cursor is in a table (the table tool's own editing commands). */
export const tableItems: readonly CommandItem[] = [
  action('addRowAfter', 'Add table row', '+row', (editor) => void editor.chain().focus().addRowAfter().run()),
  action('addColumnAfter', 'Add table column', '+col', (editor) => void editor.chain().focus().addColumnAfter().run()),
  action('deleteRow', 'Delete table row', '−row', (editor) => void editor.chain().focus().deleteRow().run()),
  action('deleteColumn', 'Delete table column', '−col', (editor) => void editor.chain().focus().deleteColumn().run()),
  action('deleteTable', 'Delete table', '×table', (editor) => void editor.chain().focus().deleteTable().run()),
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
