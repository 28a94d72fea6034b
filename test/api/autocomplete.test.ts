import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * `autocomplete`, which the admin's list search sends: each typed word matches the beginning of
 * a word of the title or of the text fields (the words the original completes, facts 2.6), or
 * every typed word is a whole word of any text, rich text included (the original searches the
 * words it completed in every text); every typed word required, ranked by where it matches;
 * hostile text is plain text. Runs on both stores.
 */
describe('autocomplete: word beginnings', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    const seeds = [
      { title: 'Spring walks by the river' },
      { title: 'Garden notes', category: 'Springtime' },
      { title: 'Autumn leaves', category: 'Seasons' },
      { title: 'Café crème', category: 'Drinks' },
      { title: 'Lambing season', body: { items: [{ type: '@cms/rich-text', content: '<p>Lambs are born in spring.</p>' }] } },
    ];
    for (const body of seeds) {
      const res = await t.request('POST', '/api/v1/article', { body });
      assert.equal(res.status, 200, res.text);
    }
  });
  after(() => t.close());

  const titles = async (query: string, key: 'admin' | null = 'admin') => {
    const res = await t.request('GET', `/api/v1/article?${query}`, { key });
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    return (res.body.results as { title: string }[]).map((doc) => doc.title).sort();
  };

  it('finds "Spring" in a title and "Springtime" in a text field from "sprin", where search needs the whole word', async () => {
    assert.deepEqual(await titles('autocomplete=sprin'), ['Garden notes', 'Spring walks by the river']);
    assert.deepEqual(await titles('autocomplete=SPRIN'), ['Garden notes', 'Spring walks by the river'], 'any case');
    assert.deepEqual(await titles('search=sprin'), [], 'search matches whole (stemmed) words');
    assert.deepEqual(await titles('search=spring'), ['Lambing season', 'Spring walks by the river']);
  });

  it('finds a whole word of the rich text, not its beginning', async () => {
    assert.deepEqual(await titles('autocomplete=spring'), ['Garden notes', 'Lambing season', 'Spring walks by the river']);
    assert.deepEqual(await titles('autocomplete=lambs%20spring'), ['Lambing season']);
    assert.deepEqual(await titles('autocomplete=born'), ['Lambing season']);
    assert.deepEqual(await titles('autocomplete=bor'), [], 'rich text is not completed');
    assert.deepEqual(await titles('autocomplete=born', null), [], 'the body is not public');
  });

  it('requires every typed word, each matching the beginning of a word', async () => {
    assert.deepEqual(await titles('autocomplete=sprin%20riv'), ['Spring walks by the river']);
    assert.deepEqual(await titles('autocomplete=sprin%20autu'), []);
    assert.deepEqual(await titles('autocomplete=pring'), [], 'the middle of a word is not its beginning');
  });

  it('ignores accents as the index does, and answers anonymous callers from the public texts', async () => {
    assert.deepEqual(await titles('autocomplete=cafe%20cre'), ['Café crème']);
    assert.deepEqual(await titles('autocomplete=sprin', null), ['Garden notes', 'Spring walks by the river']);
  });

  it('ranks by relevance: a title match before a text-field match', async () => {
    const res = await t.request('GET', '/api/v1/article?autocomplete=sprin');
    assert.deepEqual(res.body.results.map((doc: { title: string }) => doc.title), ['Spring walks by the river', 'Garden notes']);
  });

  it('treats quotes, operators and query syntax of either store as plain text: never a 500', async () => {
    const hostile = [
      '"', '""sprin', "sprin'", "'", 'sprin:*', 'sprin*', '*', 'sprin & autu', 'sprin | riv', '!sprin', 'sprin <-> riv',
      '(sprin', 'NEAR(sprin riv)', 'title:sprin', 'sprin OR autu', '-sprin', '^sprin', '\\', 'sprin\u0000riv', '%', '_', '\u0301',
      `${'sprin '.repeat(80)}`.trim(),
    ];
    for (const text of hostile) {
      const res = await t.request('GET', `/api/v1/article?autocomplete=${encodeURIComponent(text)}`);
      assert.equal(res.status, 200, `${JSON.stringify(text)}: ${res.text}`);
      assert.ok(Array.isArray(res.body.results));
    }
    assert.deepEqual(await titles(`autocomplete=${encodeURIComponent('sprin:*')}`), ['Garden notes', 'Spring walks by the river'], 'punctuation separates words');
  });

  it('refuses a text longer than 500 characters, and a repeated parameter, in the one error shape', async () => {
    const long = await t.request('GET', `/api/v1/article?autocomplete=${'s'.repeat(501)}`);
    assert.equal(long.status, 400, long.text);
    assert.equal(long.body.name, 'invalid');
    assert.match(long.body.message, /autocomplete/);
    const twice = await t.request('GET', '/api/v1/article?autocomplete=sprin&autocomplete=riv');
    assert.equal(twice.status, 400, twice.text);
    assert.equal(twice.body.name, 'invalid');
  });
});
