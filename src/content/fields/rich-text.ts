import sanitizeHtml from 'sanitize-html';
import { colorPatterns } from './color.js';

export const richTextWidgetType = '@cms/rich-text';

const headings = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];

/**
 * The original's defaults: what its default toolbar (styles, bold, italic, strike, underline,
 * sub/superscript, blockquote, alignment, image, rule, link, anchor, lists, color) and default
 * insert menu (image, table, rule) can produce, and nothing else.
 */
export const richTextSanitizeOptions: sanitizeHtml.IOptions = {
  allowedTags: [
    ...['p', 'br', 'b', 'strong', 'i', 'em', 's', 'u', 'a', 'hr', 'ul', 'ol', 'li', 'blockquote', 'pre', 'code'],
    ...['span', 'sup', 'sub', 'table', 'thead', 'tbody', 'tr', 'td', 'th', 'colgroup', 'col', 'div'],
    ...['figure', 'img', 'figcaption', ...headings],
  ],
  allowedAttributes: {
    a: ['href', 'id', 'name', 'title', 'rel', 'target'],
    img: ['src', 'alt'],
    figure: ['class'],
    span: ['id'],
    td: ['colspan', 'rowspan', 'colwidth'],
    th: ['colspan', 'rowspan', 'colwidth'],
    '*': ['style'],
  },
  allowedStyles: {
    '*': {
      'text-align': [/^(left|center|right|justify)$/],
      color: colorPatterns,
    },
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: {},
  // `//host/x` leaves the site like an absolute URL would, without naming a scheme.
  allowProtocolRelative: false,
};

export function sanitizeRichText(html: string): string {
  return sanitizeHtml(html, richTextSanitizeOptions);
}

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => entities[c]!);
}

/** Plain text given for a whole area becomes one paragraph of rich text. */
export function richTextFromPlainText(text: string): Record<string, unknown> {
  return { type: richTextWidgetType, content: `<p>${escapeHtml(text)}</p>` };
}
