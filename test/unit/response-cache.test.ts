import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cdnTagsOf } from '../../src/http/cdn-tags.js';

const maxCdnTagsLength = 4000;
const maxCachedParams = 100;
import { answerOf, canonicalUrl, ResponseCache, type Answer, type Kept } from '../../src/http/response-cache.js';
import { preferredEncoding } from '../../src/http/cached-answers.js';

/** A kept answer built from `keys`, at `token`, last found current at position `at`. */
function kept(answer: Answer, token = 'g', at = '1'): Kept {
  return { answer, sources: { keys: ['article:published'], versions: [] }, token, checkedAt: at };
}

test('the response cache hands a kept answer to its caller to check, and drops it when told it is stale', () => {
  const cache = new ResponseCache({ maxEntries: 10, maxBytes: 1_000_000 });
  const answer = answerOf('{"a":1}');
  cache.set('k', kept(answer));
  const found = cache.get('k');
  assert.equal(found?.answer, answer);
  found!.checkedAt = '2';
  assert.equal(cache.get('k')?.checkedAt, '2', 'where it was last found current is remembered');
  cache.drop('k', found!);
  assert.equal(cache.get('k'), undefined, 'a stale answer is gone for good');
  assert.deepEqual(cache.size, { entries: 0, bytes: 0 });
});

test('the response cache drops the least recently used answers past its entries or bytes', () => {
  const byEntries = new ResponseCache({ maxEntries: 2, maxBytes: 1_000_000 });
  byEntries.set('a', kept(answerOf('1')));
  byEntries.set('b', kept(answerOf('2')));
  assert.ok(byEntries.get('a'), 'a is now the most recently used');
  byEntries.set('c', kept(answerOf('3')));
  assert.equal(byEntries.get('b'), undefined);
  assert.ok(byEntries.get('a') && byEntries.get('c'));

  const byBytes = new ResponseCache({ maxEntries: 100, maxBytes: 1000 });
  const big = () => answerOf('x'.repeat(200));
  for (const key of ['a', 'b', 'c', 'd']) byBytes.set(key, kept(big()));
  assert.equal(byBytes.size.entries, 4);
  const e = big();
  byBytes.set('e', kept(e));
  assert.equal(byBytes.get('a'), undefined);
  assert.equal(byBytes.size.entries, 4);
  byBytes.grew('e', e, 250);
  assert.deepEqual([byBytes.get('b'), byBytes.size.entries], [undefined, 3], 'compressed copies count too');
  byBytes.set('large', kept(answerOf('y'.repeat(260))));
  assert.equal(byBytes.get('large'), undefined, 'an answer over a quarter of the bytes is not kept');
  assert.equal(byBytes.size.entries, 3, 'and pushes nothing out');

  const off = new ResponseCache({ maxEntries: 0, maxBytes: 1000 });
  assert.equal(off.enabled, false);
  off.set('a', kept(answerOf('1')));
  assert.equal(off.get('a'), undefined);
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

test('CDN tags: a key per dependency and type for a list; a get-one\'s document and the keys its type can show besides, else type-level ones past the bound', () => {
  const typeLevel = ['article:published', '@cms/user:', '(attachments)'];
  assert.deepEqual(cdnTagsOf(typeLevel, undefined, maxCdnTagsLength), {
    surrogateKey: 'article article:published @cms/user attachments',
    cacheTag: 'article,article:published,@cms/user,attachments',
  });
  const one = { docId: 'd1', relatedKeys: ['book:published', '(attachments)'] };
  assert.deepEqual(cdnTagsOf(typeLevel, one, maxCdnTagsLength), {
    surrogateKey: 'doc:d1 book book:published attachments',
    cacheTag: 'doc:d1,book,book:published,attachments',
  });
  const wide = { docId: 'd1', relatedKeys: Array.from({ length: maxCdnTagsLength / 10 }, (_, i) => `type-${i}:published`) };
  assert.equal(cdnTagsOf(['article:published'], wide, maxCdnTagsLength)?.surrogateKey, 'article article:published', 'too many related types: the type-level tags');
  const types = Array.from({ length: maxCdnTagsLength / 10 }, (_, i) => `type-${i}:published`);
  assert.equal(cdnTagsOf(types, undefined, maxCdnTagsLength), null, 'too many types: none');
  assert.equal(cdnTagsOf(['article:published'], undefined, 0), null, '0: never');
});
