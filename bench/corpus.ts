/**
 * What the bench stores: its configuration file and the seeded articles. Deterministic, so two
 * runs at the same size hold the same texts.
 */
export const adminKey = 'bench-admin-key-0123456789';
export const categories = ['news', 'sports', 'culture', 'science', 'travel'];
export const tags = ['local', 'world', 'opinion', 'review', 'guide', 'interview', 'video', 'photo', 'data', 'live'];
/** Occurs in every hundredth article's body and in no other text: the 1% search. */
export const rareWord = 'zephyr';

const words = (
  'garden river market winter castle harbor engine planet forest violin lantern meadow silver ' +
  'bridge candle desert island mirror orchard pepper quarry ribbon saddle thunder valley window ' +
  'anchor basket canyon dragon feather glacier hammer jungle kettle ladder magnet needle ocean ' +
  'pillow rocket shadow ticket umbrella velvet wagon yellow zebra almond bamboo cobalt dune ember'
).split(' ');

export function benchConfig(): Record<string, unknown> {
  return {
    baseUrl: 'http://bench.test',
    locales: { en: { label: 'English' } },
    // 50 connections uploading at once: the default budget (3 at a time) would refuse most. The
    // load generator keeps sending on a connection after the server's `Connection: close` (Node
    // marks the 1,000th answer so by default), and Node answers what follows with 503.
    limits: { uploadsInFlight: 100, uploadBytesPerMinute: 1024 ** 4, requestsPerConnection: 1_000_000 },
    modules: {
      author: {
        extend: '@cms/piece-type',
        options: { label: 'Author', publicApiProjection: { title: 1, slug: 1 } },
        fields: { add: { bio: { type: 'string', textarea: true } } },
      },
      article: {
        extend: '@cms/piece-type',
        options: {
          label: 'Article',
          pagePath: '/articles',
          publicApiProjection: { title: 1, slug: 1, category: 1, priority: 1, tags: 1, body: 1, _authors: 1, _url: 1 },
        },
        fields: {
          add: {
            category: { type: 'select', choices: categories.map((value) => ({ label: value, value })) },
            priority: { type: 'integer', min: 0, max: 100 },
            tags: { type: 'checkboxes', choices: tags.map((value) => ({ label: value, value })) },
            _authors: { type: 'relationship', withType: 'author' },
            body: { type: 'area', options: { widgets: { '@cms/rich-text': {} } } },
          },
        },
      },
    },
  };
}

/** A few words picked by a small linear congruential generator seeded with `n`. */
function sentence(n: number, length: number): string {
  let state = (n * 2654435761) >>> 0;
  const out: string[] = [];
  for (let i = 0; i < length; i++) {
    state = (state * 1664525 + 1013904223) >>> 0;
    out.push(words[state % words.length]);
  }
  return out.join(' ');
}

/**
 * About 1 KB of rich text, as an editor writes it: a heading, paragraphs with bold, italics and a
 * link, a list. `label` goes into the first paragraph (a write's distinct id); every hundredth
 * article has the rare word.
 */
export function richText(n: number, label = String(n)): string {
  const words = (part: number, length: number) => sentence(n * 7 + part, length);
  return (
    `<h2>${words(0, 5)}</h2>` +
    `<p>Report ${label}: ${words(1, 12)} <strong>${words(2, 3)}</strong> ${words(3, 14)} ` +
    `<a href="https://example.com/articles/${n}">${words(4, 2)}</a> ${words(5, 8)}.</p>` +
    `<ul><li>${words(6, 5)}</li><li>${words(7, 5)}</li><li>${words(8, 5)}</li></ul>` +
    `<p>${words(9, 16)} <em>${words(10, 4)}</em> ${words(11, 18)}${n % 100 === 0 ? ` ${rareWord}` : ''}.</p>`
  );
}

/**
 * Article `n` as the insert body: a title, filter values, two tags, two related authors and about
 * 1 KB of rich text in its area. `label` replaces `n` in the title and the text (a write's id).
 */
export function articleBody(n: number, authorIds: readonly string[], label = String(n)): Record<string, unknown> {
  return {
    title: `Article ${label} ${sentence(n, 3)}`,
    category: categories[n % categories.length],
    priority: n % 100,
    tags: [tags[n % tags.length], tags[(n * 7 + 3) % tags.length]],
    _authors: [authorIds[n % authorIds.length], authorIds[(n + 1) % authorIds.length]],
    body: richText(n, label),
  };
}
