import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cdnTagsOf } from '../../src/http/cdn-tags.js';

const maxCdnTagsLength = 4000;
const maxCachedParams = 100;
import { answerOf, canonicalUrl, ResponseCache } from '../../src/http/response-cache.js';
import { preferredEncoding } from '../../src/http/cached-answers.js';

test('the response cache keeps an answer while its generation stands, and drops it once it moved', () => {
  const cache = new ResponseCache({ maxEntries: 10, maxBytes: 1_000_000 });
  const answer = answerOf('{"a":1}');
  cache.set('k', '1', answer);
  assert.equal(cache.get('k', '1'), answer);
  assert.equal(cache.get('k', '2'), undefined);
  assert.equal(cache.get('k', '1'), undefined, 'a stale answer is gone for good');
  assert.deepEqual(cache.size, { entries: 0, bytes: 0 });
});

test('the response cache drops the least recently used answers past its entries or bytes', () => {
  const byEntries = new ResponseCache({ maxEntries: 2, maxBytes: 1_000_000 });
  byEntries.set('a', 'g', answerOf('1'));
  byEntries.set('b', 'g', answerOf('2'));
  assert.ok(byEntries.get('a', 'g'), 'a is now the most recently used');
  byEntries.set('c', 'g', answerOf('3'));
  assert.equal(byEntries.get('b', 'g'), undefined);
  assert.ok(byEntries.get('a', 'g') && byEntries.get('c', 'g'));

  const byBytes = new ResponseCache({ maxEntries: 100, maxBytes: 1000 });
  const big = () => answerOf('x'.repeat(200));
  for (const key of ['a', 'b', 'c', 'd']) byBytes.set(key, 'g', big());
  assert.equal(byBytes.size.entries, 4);
  const e = big();
  byBytes.set('e', 'g', e);
  assert.equal(byBytes.get('a', 'g'), undefined);
  assert.equal(byBytes.size.entries, 4);
  byBytes.grew('e', e, 250);
  assert.deepEqual([byBytes.get('b', 'g'), byBytes.size.entries], [undefined, 3], 'compressed copies count too');
  byBytes.set('large', 'g', answerOf('y'.repeat(260)));
  assert.equal(byBytes.get('large', 'g'), undefined, 'an answer over a quarter of the bytes is not kept');
  assert.equal(byBytes.size.entries, 3, 'and pushes nothing out');

  const off = new ResponseCache({ maxEntries: 0, maxBytes: 1000 });
  assert.equal(off.enabled, false);
  off.set('a', 'g', answerOf('1'));
  assert.equal(off.get('a', 'g'), undefined);
});

test('the canonical URL orders parameters by top-level name, keeps the order inside each, and leaves out credentials', () => {
  const text = (url: string) => canonicalUrl(url, ['apikey', 'apiKey'], maxCachedParams)?.text;
  assert.equal(text('/a?b=2&a=1'), text('/a?a=1&b=2'));
  assert.equal(text('/a?b=2&a=1'), '/a?a=1&b=2');
  assert.equal(text('/a'), '/a');
  assert.notEqual(text('/a?sort[x]=1&sort[y]=-1'), text('/a?sort[y]=-1&sort[x]=1'), 'one top-level name keeps its order');
  assert.equal(text('/a?z=1&sort[y]=-1&sort[x]=1'), '/a?sort[y]=-1&sort[x]=1&z=1');
  assert.notEqual(text('/a?_ids[]=a&_ids[]=b'), text('/a?_ids[]=b&_ids[]=a'));
  assert.notEqual(text('/a?page=1&%70age=2'), text('/a?%70age=2&page=1'), 'an encoded name keeps the raw order');
  assert.equal(text('/a?apikey=secret&page=1'), '/a?page=1');
  assert.equal(text('/a?page=1&apiKey=secret'), '/a?page=1');
  assert.equal(canonicalUrl('/a?apikey=s&page=1', ['apikey'], maxCachedParams)?.omitted, 1);
  assert.equal(canonicalUrl('/a?%61pikey=s', ['apikey'], maxCachedParams)?.omitted, 0, 'an encoded credential name is not recognised: the caller keeps such a request out');
  assert.equal(text('/a?a=1&a=2'), '/a?a=1&a=2');
  assert.notEqual(text('/b?a=1'), text('/a?a=1'));
  assert.equal(text(`/a?${Array.from({ length: maxCachedParams + 1 }, (_, i) => `p${i}=1`).join('&')}`), undefined, 'too many parameters: not kept');
});

test('the preferred coding: br, then gzip, nothing refused with q=0', () => {
  assert.equal(preferredEncoding('gzip, deflate, br'), 'br');
  assert.equal(preferredEncoding('gzip'), 'gzip');
  assert.equal(preferredEncoding('br;q=0, gzip;q=0.5'), 'gzip');
  assert.equal(preferredEncoding('*'), 'gzip');
  assert.equal(preferredEncoding('identity'), null);
  assert.equal(preferredEncoding('gzip;q=0'), null);
  assert.equal(preferredEncoding(undefined), null);
});

test('CDN tags: a key per dependency and type, the documents shown, and type-level ones alone past the bound', () => {
  assert.deepEqual(cdnTagsOf(['article:published', '@cms/user:', '(attachments)'], ['d1'], maxCdnTagsLength), {
    surrogateKey: 'article article:published @cms/user attachments doc:d1',
    cacheTag: 'article,article:published,@cms/user,attachments,doc:d1',
  });
  const many = Array.from({ length: maxCdnTagsLength / 10 }, (_, i) => `document-${i}`);
  assert.equal(cdnTagsOf(['article:published'], many, maxCdnTagsLength)?.surrogateKey, 'article article:published', 'too many documents: the type-level tags');
  const types = Array.from({ length: maxCdnTagsLength / 10 }, (_, i) => `type-${i}:published`);
  assert.equal(cdnTagsOf(types, [], maxCdnTagsLength), null, 'too many types: none');
  assert.equal(cdnTagsOf(['article:published'], [], 0), null, '0: never');
});
