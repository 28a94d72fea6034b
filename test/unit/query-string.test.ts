import { test } from 'node:test';
import assert from 'node:assert/strict';
import qs from 'qs';
import { parseQueryString } from '../../src/http/query-string.js';

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
