import { test } from 'node:test';
import assert from 'node:assert/strict';
import qs from 'qs';
import { lazyQueryString, mayHaveParameter, parseQueryString } from '../../src/http/query-string.js';

const byQs = (text: string) => qs.parse(text, { depth: 3, arrayLimit: 200, parameterLimit: 500, allowPrototypes: false });

test('the query string parser gives what qs gives, plain pairs or not', () => {
  const texts = [
    '', 'page=1', 'page=1&perPage=20&cmsLocale=en', 'a=', 'a=1&a=2', 'toString=1', '__proto__=1&page=2', 'constructor=x',
    'hasOwnProperty=1', 'a=1.5~x-y_z', 'q=a+b', 'q=%41', '%70age=1', 'sort[title]=1', '_ids[]=a&_ids[]=b', 'a', 'a&b=1',
    'a=1&&b=2', 'a==1', 'A-b_c=0', Array.from({ length: 17 }, (_, i) => `p${i}=1`).join('&'),
  ];
  for (const text of texts) assert.deepEqual(parseQueryString(text), byQs(text), text);
  assert.equal(Object.getPrototypeOf(parseQueryString('page=1')), Object.prototype);
});

test('the router parser parses when the query is first read, and gives what the parser gives', () => {
  for (const text of ['page=1&perPage=20', 'sort[title]=1&_ids[]=a&_ids[]=b', 'q=%41+b', '__proto__=1&page=2']) {
    const lazy = lazyQueryString(text);
    assert.deepEqual({ ...lazy }, parseQueryString(text), text);
    assert.deepEqual(Object.keys(lazy), Object.keys(parseQueryString(text)), text);
    assert.equal(JSON.stringify(lazy), JSON.stringify(parseQueryString(text)), text);
  }
  assert.deepEqual(lazyQueryString(''), {});
  const query = lazyQueryString('page=1&sort[title]=1');
  assert.equal('page' in query, true);
  assert.equal(query.page, '1');
  assert.deepEqual(query.sort, { title: '1' });
  // Validation coerces in place and removes what its schema does not take.
  query.page = 1;
  delete query.sort;
  assert.deepEqual({ ...query }, { page: 1 });
  assert.equal(Object.getPrototypeOf(query), Object.prototype);
});

test('a query is not parsed until read: a cache hit and the credential check leave it as text', () => {
  let parses = 0;
  const original = qs.parse;
  (qs as { parse: unknown }).parse = (...args: Parameters<typeof qs.parse>) => {
    parses++;
    return original(...args);
  };
  try {
    const query = lazyQueryString('sort[title]=1&priority[min]=10');
    assert.equal(mayHaveParameter('/api/v1/article?sort[title]=1&priority[min]=10', ['apikey', 'apiKey']), false);
    assert.equal(parses, 0);
    assert.deepEqual(query.priority, { min: '10' });
    assert.equal(parses, 1);
    assert.deepEqual(query.sort, { title: '1' });
    assert.equal(parses, 1, 'once');
  } finally {
    (qs as { parse: unknown }).parse = original;
  }
});

test('the raw text tells a query that cannot name a parameter; any other spelling may', () => {
  const names = ['apikey', 'apiKey'];
  const may = (url: string) => mayHaveParameter(url, names);
  for (const url of ['/a', '/a?', '/a?page=1', '/a?sort[title]=1&_ids[]=x', '/a?apikeyx=1', '/a?xapikey=1', '/a?q=apikey', '/a?q=%61pikey', '/a?a=1&&b=2']) {
    assert.equal(may(url), false, url);
  }
  for (const url of ['/a?apikey=k', '/a?apiKey=k', '/a?page=1&apikey', '/a?apikey[]=k', '/a?apikey[x]=k', '/a?ap%69key=k', '/a?[apikey]=k', '/a?api+key=k', '/a?=k', '/a?p.q=1']) {
    assert.equal(may(url), true, url);
  }
  // Whenever the parsed query has one of the names, the raw text said it may.
  for (const url of ['/a?ap%69key=k', '/a?apikey[]=k', '/a?[apikey]=k', '/a?apiKey=k&page=2']) {
    const parsed = parseQueryString(url.slice(url.indexOf('?') + 1));
    assert.ok(names.some((name) => name in parsed), url);
    assert.equal(may(url), true, url);
  }
});

test('the raw text check agrees with splitting the query and reading each name whole, on random queries', () => {
  const names = ['apikey', 'apiKey'];
  const plain = /^[A-Za-z0-9_-]+(?:\[[A-Za-z0-9_-]*\])*$/;
  const bySplitting = (url: string) => {
    const mark = url.indexOf('?');
    if (mark === -1) return false;
    return url.slice(mark + 1).split('&').some((param) => {
      if (param.length === 0) return false;
      const equals = param.indexOf('=');
      const name = equals === -1 ? param : param.slice(0, equals);
      if (!plain.test(name)) return true;
      const bracket = name.indexOf('[');
      return names.includes(bracket === -1 ? name : name.slice(0, bracket));
    });
  };
  const pieces = ['apikey', 'apiKey', 'api', 'key', 'page', '=', '&', '[', ']', '%61', '+', '1', 'x', '_', '-', '?'];
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (let round = 0; round < 5000; round++) {
    const url = '/a?' + Array.from({ length: random(8) }, () => pieces[random(pieces.length)]).join('');
    assert.equal(mayHaveParameter(url, names), bySplitting(url), url);
  }
});

test('the raw text check answers long queries of parameters without `=` or brackets', () => {
  const url = `/a?${'a&'.repeat(8000)}b=1`;
  assert.equal(mayHaveParameter(url, ['apikey']), false);
  assert.equal(mayHaveParameter(`${url}&apikey=k`, ['apikey']), true);
  assert.equal(mayHaveParameter(`/a?${'a[x]&'.repeat(4000)}apikey[]=k`, ['apikey']), true);
  assert.equal(mayHaveParameter(`/a?${'a=1&'.repeat(4000)}apikey`, ['apikey']), true);
});
