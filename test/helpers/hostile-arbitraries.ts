import fc from 'fast-check';

/**
 * fast-check generators of hostile input for `test/api/hostile-generated.test.ts`: JSON bodies
 * (written by hand, so `__proto__` keys, duplicate keys and odd number literals survive), PATCH
 * operations, query strings, headers, path segments and multipart file names.
 */

/** A JSON object as an ordered list of entries: keys such as `__proto__` and repeated keys stay as sent. */
export class JsonObject {
  constructor(readonly entries: readonly (readonly [string, Json])[]) {}
}

/** A number written exactly as given (`1e999`, `-0`, 30 digits): JSON.stringify would normalise it. */
export class NumberLiteral {
  constructor(readonly text: string) {}
}

export type Json = null | boolean | number | string | NumberLiteral | JsonObject | readonly Json[];

export function toJson(value: Json): string {
  if (value instanceof JsonObject) return `{${value.entries.map(([key, item]) => `${JSON.stringify(key)}:${toJson(item)}`).join(',')}}`;
  if (value instanceof NumberLiteral) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  // NaN and Infinity come out as null, as any JSON client would send them.
  return JSON.stringify(value) ?? 'null';
}

/** Percent-encoding of any string: lone surrogates become U+FFFD, as a client's UTF-8 encoder makes them. */
export const percentEncode = (text: string): string => encodeURIComponent(Buffer.from(text, 'utf8').toString('utf8'));

export const object = (entries: Record<string, Json>): JsonObject => new JsonObject(Object.entries(entries));

// ---- strings, numbers, keys ----------------------------------------------------------------

const nastyStringList = [
  '', ' ', '\u0000', 'a\u0000b', '\t\r\n', '\uFEFF', '\uD800', '\uDFFF\uD800', '😀', '\u202Eevil', 'null', 'undefined', 'NaN',
  'true', '0', '-1', '1e309', '0x10', '12abc', '2025-02-30', '25:61', 'javascript:alert(1)', '//evil.example', 'data:text/html,x',
  '<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '<a href="javascript:x">x</a>', "'; DROP TABLE documents; --",
  '" OR 1=1 --', '%', '%zz', '%00', '%2e%2e%2f', '../../etc/passwd', '..\\..\\windows', '/etc/passwd', 'C:\\x', '__proto__',
  'constructor', 'prototype', '$where', '{"$gt":""}', '@cms/rich-text', 'rgb(1,2)', 'a@b', '#fff', 'x'.repeat(300), 'é'.repeat(2000),
] as const;

export const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...nastyStringList) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 200_000 }).map((n) => 'x'.repeat(n)) },
);

const numberLiterals = ['1e999', '-1e999', '-0', '123456789012345678901234567890', '0.0000000000000000000001', '1E+2', '9007199254740993'];

export const nastyNumber: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom(0, -1, 1, 1.5, 100, 101, 2 ** 31, 2 ** 53, -(2 ** 53), 4294967296, 999_999_999, Number.MAX_VALUE, Number.MIN_VALUE),
  fc.double(),
  fc.integer(),
  fc.constantFrom(...numberLiterals).map((text) => new NumberLiteral(text)),
);

/** Field names of the fixture types, the service's own properties, and keys that must never reach an object. */
export const fieldKeys = [
  'title', 'slug', 'category', 'priority', 'tags', 'color', '_author', 'author', '_related', 'related', 'body', 'links',
  'visibility', 'archived', 'text', 'attachment', 'alt', 'credit', 'creditUrl', 'description', 'username', 'password', 'role',
  'email', 'disabled', '_id', 'type', 'cmsDocId', 'cmsLocale', 'cmsMode', 'metaType', 'updatedAt', 'createdAt',
  'lastPublishedAt', 'updatedBy', 'toLocale', 'update', 'crop', 'top', 'left', 'width', 'height',
] as const;

const prototypeKeys = ['__proto__', 'constructor', 'prototype', 'a.__proto__', '__proto__.polluted', 'links.0.constructor'];

export const nastyKey = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...fieldKeys) },
  { weight: 2, arbitrary: fc.constantFrom(...prototypeKeys, '', '.', 'a..b', '$set', '$push', '$where', '_patches', '@x', 'title.x') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

// ---- JSON values ---------------------------------------------------------------------------

const leaf: fc.Arbitrary<Json> = fc.oneof(fc.constant(null), fc.boolean(), nastyNumber, nastyString);

/** Any JSON value, a few levels deep, objects keyed with field names and prototype keys. */
export const jsonValue: fc.Arbitrary<Json> = fc.letrec<{ value: Json; array: readonly Json[]; object: JsonObject }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.array(fc.tuple(nastyKey, tie('value')), { maxLength: 6 }).map((entries) => new JsonObject(entries)),
})).value;

/** Ids a body may name: those of throwaway documents or junk, never a sentinel's (admin writes must not reach them). */
export function widgetValue(ids: fc.Arbitrary<string>): fc.Arbitrary<Json> {
  return fc.oneof(
    fc.record({ type: fc.constant('@cms/rich-text'), content: fc.oneof(nastyString, jsonValue), _id: fc.oneof(ids, nastyString) }).map(object),
    fc.record({ type: fc.oneof(nastyString, fc.constantFrom('@cms/image', 'nope')), metaType: fc.constantFrom('widget', 'area', 'x') }).map(object),
    jsonValue,
  );
}

/** Values shaped like what the fixture fields accept, and near misses of them. */
export function fieldValue(ids: fc.Arbitrary<string>): fc.Arbitrary<Json> {
  const widget = widgetValue(ids);
  return fc.oneof(
    { weight: 3, arbitrary: jsonValue },
    { weight: 1, arbitrary: fc.array(widget, { maxLength: 4 }).map((items) => object({ metaType: 'area', items })) },
    { weight: 1, arbitrary: fc.array(widget, { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.array(fc.record({ label: nastyString, url: nastyString, _id: fc.oneof(ids, nastyString) }).map(object), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.array(fc.oneof(ids, nastyString), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.record({ _id: fc.oneof(ids, nastyString), crop: jsonValue }).map(object) },
  );
}

/** A document-like body: field names with hostile values, plus the odd prototype key. */
export function documentBody(ids: fc.Arbitrary<string>): fc.Arbitrary<JsonObject> {
  return fc
    .array(fc.tuple(nastyKey, fieldValue(ids)), { minLength: 1, maxLength: 8 })
    .map((entries) => new JsonObject(entries));
}

/** Large but bounded values: long strings and long arrays, within the default body limit. */
export const bulkyBody: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 10_000, max: 1_000_000 }).map((n) => toJson(object({ title: 'y'.repeat(n) }))),
  fc.integer({ min: 1_000, max: 50_000 }).map((n) => toJson(object({ title: 'Bulky', tags: Array(n).fill('news') }))),
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => toJson(object({ title: 'Bulky', links: Array(n).fill(object({ label: 'l' })) }))),
  fc.integer({ min: 1_000, max: 50_000 }).map((n) => toJson(object({ title: 'Bulky', _related: Array(n).fill('nope') }))),
);

/** JSON nested around the depth limit (64) and far beyond it. */
export const deepBody: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(62, 63, 64, 65, 66, 1000, 100_000), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => `{"title":${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}}`);

/** Bodies that are not a JSON object at all. */
export const malformedBody = fc.constantFrom(
  '', ' ', '{', '}', 'null', '[]', '[1,2]', '"x"', '1', 'true', '{"a":1}{"b":2}', '\uFEFF{}', '{"title":"x",}', "{'title':'x'}",
  '{"title":"\\ud800"}', '{"title":"\u0000"}', '{"title":NaN}', '{"title":1e999}', '{"__proto__":{"polluted":1}}',
  '{"title":"x","title":{"$gt":""}}', '\u0000', 'title=x&slug=y',
);

export function anyBody(ids: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: documentBody(ids).map(toJson) },
    { weight: 2, arbitrary: jsonValue.map(toJson) },
    { weight: 2, arbitrary: malformedBody },
    { weight: 1, arbitrary: deepBody },
    { weight: 1, arbitrary: bulkyBody },
  );
}

// ---- PATCH ---------------------------------------------------------------------------------

const operatorNames = ['$set', '$unset', '$inc', '$push', '$addToSet', '$pull', '$pullAll', '$pullAllById', '$move'] as const;
const unknownOperators = ['$rename', '$where', '$setOnInsert', '$', '$SET', '$push.$each', '$__proto__'] as const;

/** PATCH paths: real fields and nesting, at-notation, and malformed paths. `hugeIndex` adds array indexes far past the end. */
export function patchPath(ids: fc.Arbitrary<string>, options: { hugeIndex: boolean }): fc.Arbitrary<string> {
  const index = fc.oneof(fc.nat(3), fc.constantFrom('-1', '1e3', '00', '0x1', '1.5', 'a'));
  const farOut = fc
    .tuple(fc.constantFrom('links', 'body.items', 'tags', '_related'), fc.constantFrom('100000000', '999999999', '4294967294'), fc.constantFrom('', '.label', '.content'))
    .map(([field, i, rest]) => `${field}.${i}${rest}`);
  const paths: fc.Arbitrary<string>[] = [
    fc.constantFrom(...fieldKeys),
    fc.tuple(fc.constantFrom('links', 'body.items', 'tags', '_related'), index, fc.constantFrom('', '.label', '.url', '.content', '._id', '.x.y')).map(
      ([field, i, rest]) => `${field}.${i}${rest}`,
    ),
    fc.tuple(fc.oneof(ids, nastyString), fc.constantFrom('', '.content', '.label', '.items', '._id')).map(([id, rest]) => `@${id}${rest}`),
    fc.constantFrom(...prototypeKeys, '', '.', 'title.', '.title', 'a..b', 'body.items', 'body.__proto__', 'links.constructor.name'),
    nastyString,
  ];
  return options.hugeIndex ? fc.oneof({ weight: 2, arbitrary: farOut }, ...paths.map((arbitrary) => ({ weight: 1, arbitrary }))) : fc.oneof(...paths);
}

function operand(ids: fc.Arbitrary<string>): fc.Arbitrary<Json> {
  return fc.oneof(
    { weight: 3, arbitrary: fieldValue(ids) },
    {
      weight: 2,
      arbitrary: fc
        .record(
          { $each: fc.oneof(fc.array(fieldValue(ids), { maxLength: 4 }), jsonValue), $position: nastyNumber, $before: fc.oneof(ids, nastyString), $after: fc.oneof(ids, nastyString), $slice: nastyNumber },
          { requiredKeys: [] },
        )
        .map(object),
    },
    { weight: 1, arbitrary: fc.record({ $before: fc.oneof(ids, nastyString), $after: fc.oneof(ids, nastyString) }, { requiredKeys: [] }).map(object) },
  );
}

/** One PATCH object: plain keys, operators known and unknown, and `_patches` lists of further patches. */
export function patchBody(ids: fc.Arbitrary<string>, options: { hugeIndex: boolean }): fc.Arbitrary<JsonObject> {
  const path = patchPath(ids, options);
  const operatorEntry = fc.tuple(
    fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...operatorNames) }, { weight: 1, arbitrary: fc.constantFrom(...unknownOperators) }),
    fc.oneof(
      { weight: 5, arbitrary: fc.array(fc.tuple(path, operand(ids)), { maxLength: 3 }).map((entries) => new JsonObject(entries)) as fc.Arbitrary<Json> },
      { weight: 1, arbitrary: jsonValue },
    ),
  );
  const plainEntry = fc.tuple(path, fieldValue(ids));
  const one = fc.array(fc.oneof(operatorEntry, plainEntry), { minLength: 1, maxLength: 4 }).map((entries) => new JsonObject(entries));
  return fc.oneof(
    { weight: 4, arbitrary: one },
    { weight: 1, arbitrary: fc.array(one, { maxLength: 3 }).map((patches) => object({ _patches: patches })) },
    { weight: 1, arbitrary: jsonValue.map((value) => object({ _patches: value })) },
  );
}

// ---- query strings, headers, path segments -------------------------------------------------

const queryKeys = [
  'page', 'perPage', 'sort', 'project', '_ids', 'archived', 'cmsLocale', 'cmsMode', 'search', 'autocomplete', 'count', 'choices',
  'counts', 'renderAreas', 'render-areas', 'skip', 'limit', 'category', 'priority', 'tags', 'color', '_author', '_related', 'slug',
  'title', 'visibility', 'size', 'aposMode', 'aposLocale', '__proto__', 'constructor', 'toString', 'hasOwnProperty',
] as const;

const queryValues = [
  '', '0', '-1', '1', '2', '100', '101', '1e309', '99999999999999999999', '9007199254740993', 'NaN', 'Infinity', '1.5', 'true', 'false',
  'any', 'null', 'draft', 'published', 'previous', 'en', 'es', 'xx', 'en:draft', 'inline', 'relevance', 'search', 'title', '-1',
  '__proto__', 'constructor', '%', '%zz', '%00', '%ff%fe', 'x'.repeat(600), 'a,b,c', 'max', 'full', 'original', '../../x',
] as const;

const bracketSuffixes = ['', '[]', '[0]', '[1]', '[title]', '[updatedAt]', '[min]', '[max]', '[$gt]', '[__proto__]', '[a][b][c][d][e]', '[999999]', '[]]', '['];

const queryPair = fc
  .tuple(
    fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...queryKeys) }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map(percentEncode) }),
    fc.constantFrom(...bracketSuffixes),
    fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...queryValues) }, { weight: 2, arbitrary: nastyString.map((s) => percentEncode(s.slice(0, 300)).replace(/%2C/g, ',')) }),
  )
  .map(([key, suffix, value]) => `${key}${suffix}=${value}`);

/** A query string (without `?`): repeated keys, qs brackets, extremes; never a valid API key. */
export const queryString: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.array(queryPair, { maxLength: 6 }).map((pairs) => pairs.join('&')) },
  { weight: 1, arbitrary: fc.integer({ min: 400, max: 1200 }).map((n) => Array.from({ length: n }, (_, i) => `tags[]=${i}`).join('&')) },
  { weight: 1, arbitrary: fc.constantFrom('&&&', '=', '==&=x', '?', '#', 'a[=1', 'sort[title]=1&sort=title', 'page=1&page=2', 'cmsMode=draft&cmsMode=published', 'apikey=&apiKey=x', 'apikey[]=x') },
);

export const contentTypes = [
  'application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-16', 'APPLICATION/JSON', 'application/json, text/plain',
  'application/jsonx', 'application/vnd.api+json', 'text/plain', 'text/json', 'application/x-www-form-urlencoded', 'multipart/form-data',
  'multipart/form-data; boundary=', 'multipart/form-data; boundary=x', 'application/octet-stream', '', ';', 'application/json;;;',
  `application/json; ${'x'.repeat(5000)}`, 'application/json; charset="\u00ff"',
] as const;

/** Extra headers a client may send: validators, ranges, proxies, encodings, oversized values. */
export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc
  .array(
    fc.tuple(
      fc.constantFrom('accept', 'accept-encoding', 'if-none-match', 'if-modified-since', 'range', 'x-forwarded-for', 'origin', 'cookie', 'x-http-method-override', 'transfer-encoding-x', 'x-big'),
      fc.oneof(
        fc.constantFrom('*', '*/*', 'gzip, br', 'W/"x"', '"1-2", *', 'Thu, 01 Jan 1970 00:00:00 GMT', 'not a date', 'bytes=0-0', 'bytes=-1,5-', '::1, 10.0.0.1', 'null', 'DELETE', 'a=b'),
        fc.integer({ min: 1000, max: 60_000 }).map((n) => 'h'.repeat(n)),
        fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
      ),
    ),
    { maxLength: 3 },
  )
  .map((pairs) => Object.fromEntries(pairs));

/** Path segments for `:_id`: junk, encoded traversal, separators, lengths around the 200 limit and the router's 2000. */
export const junkId: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(':', '::', ':::', 'x:en', 'x:en:draft', 'x:en:previous', 'x:en:draft:extra', '%', '%zz', '%00', '..%2F..%2Fcms.sqlite', '%2e%2e', '..', '.', '~', '%20', '%E2%80%AE', '%F0%9F%98%80', 'null', 'undefined', '__proto__', 'constructor'),
  fc.constantFrom(199, 200, 201, 1999, 2000, 2001, 10_000).map((n) => 'a'.repeat(n)),
  fc.string({ minLength: 1, maxLength: 30 }).map(percentEncode),
);

/** Variants of a real id: the bare cmsDocId and full `_id`s in known and unknown locales and modes. */
export function idForms(cmsDocId: string, options: { draft: boolean }): fc.Arbitrary<string> {
  const modes = options.draft ? ['draft', 'published', 'previous', 'bogus'] : ['published', 'previous', 'bogus'];
  return fc.oneof(
    fc.constant(cmsDocId),
    fc.tuple(fc.constantFrom('en', 'es', 'xx', '', 'EN'), fc.constantFrom(...modes)).map(([locale, mode]) => `${cmsDocId}:${locale}:${mode}`),
    fc.constantFrom(`${cmsDocId}:en`, `${cmsDocId}%3Aen%3Apublished`, `${cmsDocId.toUpperCase()}`, `${cmsDocId}%00`, ` ${cmsDocId}`),
  );
}

// ---- multipart -----------------------------------------------------------------------------

export const nastyFilename: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '../../etc/passwd', '../../../cms.sqlite.png', '/etc/passwd.png', 'C:\\Windows\\x.png', '..\\..\\x.png', 'a\u0000.png', 'a.png\u0000.exe',
    '.png', '..png', '.htaccess', 'x.', 'x', 'x.PNG', 'x.jpeg', 'x.png.exe', 'x.exe.png', 'x.svg', 'x.pdf', 'x.txt', 'x.html', 'x.php',
    'x.tar.gz', '😀.png', 'é.png', '%2e%2e%2fx.png', 'con.png', 'x"; name="file.png', 'x\r\nContent-Type: text/html.png', ' .png', 'x .png',
  ),
  fc.integer({ min: 100, max: 5000 }).map((n) => `${'n'.repeat(n)}.png`),
  fc.tuple(fc.string({ maxLength: 20 }), fc.constantFrom('png', 'txt', 'svg', 'pdf', 'jpg', 'exe', '')).map(([base, ext]) => `${base}.${ext}`),
);
