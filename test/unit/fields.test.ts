import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ConvertContext, DefinitionContext } from '../../src/content/fields/field-type.js';
import type { SanitizedField } from '../../src/content/types/piece-type.js';
import type { FieldError } from '../../src/errors/app-error.js';
import type { AttachmentRecord } from '../../src/storage/storage-adapter.js';
import { anonymous } from '../../src/core/principal.js';
import { ConfigError, ValidationError } from '../../src/errors/app-error.js';
import { createFieldTypeRegistry } from '../../src/content/fields/registry.js';
import { convertSchema, defaultsFor, throwIfErrors } from '../../src/content/fields/convert-schema.js';
import { resolveLimits } from '../../src/config/limits.js';
import { isValidId, slugify, sortify } from '../../src/core/text.js';

const registry = createFieldTypeRegistry();

function field(name: string, type: string, options: Record<string, unknown> = {}, extra: Partial<SanitizedField> = {}): SanitizedField {
  return { name, type, label: name, required: false, options, fields: [], ...extra };
}

const related = [
  { cmsDocId: 'topic1', title: 'Cats' },
  { cmsDocId: 'topic2', title: 'Dogs' },
  { cmsDocId: 'topic3', title: 'Birds' },
];

const attachmentRecords: Record<string, AttachmentRecord> = {
  pdf1: {
    _id: 'pdf1', type: 'attachment', group: 'office', extension: 'pdf', name: 'doc', title: 'doc', length: 10, md5: 'abc',
    crops: [], createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z',
  },
  img1: {
    _id: 'img1', type: 'attachment', group: 'images', extension: 'png', name: 'pic', title: 'pic', length: 20, md5: 'def',
    width: 8, height: 4, landscape: true, portrait: false, crops: [{ top: 0, left: 1, width: 2, height: 3 }],
    createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z',
  },
};

function makeContext(): ConvertContext & { resolveCalls: number } {
  let counter = 0;
  const ctx = {
    locale: 'en',
    mode: 'draft' as const,
    principal: anonymous,
    resolveCalls: 0,
    newId: () => `new${++counter}`,
    widgetTypes: new Map([
      ['@cms/rich-text', { fields: [] as SanitizedField[] }],
      ['@cms/image', { fields: [] as SanitizedField[] }],
      ['hero', { fields: [field('heading', 'string', {}, { required: true }), field('count', 'integer')] }],
    ]),
    relationships: {
      resolve: async (_type: string, refs: readonly string[]) => {
        ctx.resolveCalls++;
        return refs
          .map((ref) => related.find((d) => d.cmsDocId === ref.split(':')[0] || d.title === ref))
          .filter((d) => d !== undefined)
          .map((d) => ({ cmsDocId: d.cmsDocId }));
      },
      canRead: (type: string) => type !== 'secret',
    },
    attachments: { find: async (id: string) => structuredClone(attachmentRecords[id]) ?? null },
    // As if every password had been hashed before the write, the way WritePasswords hands them out.
    passwords: { minLength: 3, hashOf: (plain: string) => `hash-of-${plain}` },
    limits: resolveLimits(undefined, {}),
    sanitizedCharacters: { count: 0 },
    convertSchema: async (fields: readonly SanitizedField[], input: Record<string, unknown>, existing?: Record<string, unknown>) => {
      const { values, errors } = await convertSchema({ fields, input, existing, ctx, registry });
      throwIfErrors(errors);
      return values;
    },
  };
  return ctx;
}

/** Converts one field through the walker; returns the stored document part or the errors. */
async function run(f: SanitizedField, input: unknown, existing?: Record<string, unknown>) {
  const ctx = makeContext();
  const body = input === undefined ? {} : { [f.name]: input };
  const { values, errors } = await convertSchema({ fields: [f], input: body, existing, ctx, registry });
  return { values, errors, value: values[f.name], ctx };
}

async function value(f: SanitizedField, input: unknown, existing?: Record<string, unknown>): Promise<unknown> {
  const result = await run(f, input, existing);
  assert.deepEqual(result.errors, [], `unexpected errors for ${JSON.stringify(input)}`);
  return result.value;
}

async function failure(f: SanitizedField, input: unknown, existing?: Record<string, unknown>): Promise<FieldError> {
  const { errors } = await run(f, input, existing);
  assert.equal(errors.length, 1, `expected one error for ${JSON.stringify(input)}`);
  return errors[0]!;
}

function definitionContext(path = 'modules.article.fields.add.x'): DefinitionContext {
  return {
    path,
    pieceTypes: new Set(['topic', 'article', '@cms/user']),
    widgetTypes: new Set(['@cms/rich-text', 'hero']),
    sanitizeFields: (add) => {
      if (typeof add !== 'object' || add === null) throw new ConfigError(path, 'bad');
      return [];
    },
  };
}

function validate(type: string, definition: Record<string, unknown>, path?: string): void {
  registry.get(type)!.validateDefinition?.({ type, ...definition }, definitionContext(path));
}

function assertConfigError(fn: () => void, keyPath: string): void {
  assert.throws(fn, (e: unknown) => e instanceof ConfigError && e.path === keyPath);
}

describe('text helpers', () => {
  it('slugifies like sluggo', () => {
    assert.equal(slugify('Cool Product #1'), 'cool-product-1');
    assert.equal(slugify('  --Héllo,   Wörld!-- '), 'héllo-wörld');
    assert.equal(slugify('日本語 テキスト'), '日本語-テキスト');
    assert.equal(slugify('!!!'), '');
    assert.equal(slugify(''), '');
  });
  it('sortifies', () => {
    assert.equal(sortify('Hello, World!'), 'hello world');
    assert.equal(sortify('  A -- b  '), 'a b');
  });
  it('checks ids', () => {
    assert.ok(isValidId('abc_DEF-123'));
    assert.ok(!isValidId(''));
    assert.ok(!isValidId('a'.repeat(65)));
    assert.ok(!isValidId('a b'));
    assert.ok(!isValidId(12));
  });
});

describe('registry', () => {
  it('registers every built-in type', () => {
    const expected = ['string', 'slug', 'boolean', 'integer', 'float', 'select', 'checkboxes', 'date', 'time'];
    expected.push('dateAndTime', 'email', 'url', 'color', 'password', 'array', 'object', 'area', 'relationship', 'attachment', 'relationshipReverse');
    assert.deepEqual([...registry.names()].sort(), expected.sort());
    assert.ok(registry.has('area'));
    assert.equal(registry.get('nope'), undefined);
  });
  it('refuses a second type of the same name', () => {
    assert.throws(() => registry.register(registry.get('string')!));
  });
});

describe('walker', () => {
  const schema = [field('title', 'string', {}, { required: true }), field('count', 'integer', {}, { def: 3 })];

  it('fills defaults on insert and reports required', async () => {
    const ctx = makeContext();
    const { values, errors } = await convertSchema({ fields: schema, input: {}, ctx, registry });
    assert.deepEqual(values, { count: 3 });
    assert.deepEqual(errors, [{ name: 'required', path: 'title', message: 'required', data: {} }]);
  });
  it('skips absent fields in patch mode and prefixes paths', async () => {
    const ctx = makeContext();
    const { values, errors } = await convertSchema({
      fields: schema, input: { count: 'x' }, ctx, registry, only: new Set(['count']), pathPrefix: 'doc.',
    });
    assert.deepEqual(values, {});
    assert.equal(errors[0]!.path, 'doc.count');
    assert.equal(errors[0]!.name, 'invalid');
  });
  it('ignores unknown input properties and treats undefined as absent', async () => {
    const ctx = makeContext();
    const { values } = await convertSchema({ fields: schema, input: { title: 'A', count: undefined, junk: 1 }, ctx, registry });
    assert.deepEqual(values, { title: 'A', count: 3 });
  });
  it('rethrows errors that are not field failures', async () => {
    const ctx = makeContext();
    const broken = { ...ctx, relationships: { resolve: async () => { throw new Error('db down'); }, canRead: () => true } };
    await assert.rejects(
      convertSchema({ fields: [field('_topics', 'relationship')], input: { _topics: ['x'] }, ctx: broken, registry }),
      /db down/,
    );
  });
  it('throwIfErrors throws a ValidationError', () => {
    throwIfErrors([]);
    assert.throws(() => throwIfErrors([{ name: 'required', path: 'x' }]), ValidationError);
  });
  it('computes defaults', () => {
    let n = 0;
    const defaults = defaultsFor(
      [field('title', 'string'), field('_topics', 'relationship'), field('body', 'area')],
      registry,
      () => `id${++n}`,
    );
    assert.deepEqual(defaults, { title: '', topicsIds: [], topicsFields: {}, body: { _id: 'id1', metaType: 'area', items: [] } });
  });
});

describe('string', () => {
  const f = field('s', 'string', { min: 2, max: 5, pattern: '^[a-z0-9 ]*$' });
  it('converts', async () => {
    assert.equal(await value(f, '  abc  '), 'abc');
    assert.equal(await value(f, 123), '123');
    assert.equal(await value(field('s', 'string'), true), 'true');
    assert.equal(await value(f, null), '');
    assert.equal(await value(field('s', 'string'), 'a\nb'), 'a\nb');
    assert.equal(await value(field('s', 'string', {}, { def: 'd' }), undefined), 'd');
  });
  it('refuses', async () => {
    assert.equal((await failure(f, 'a')).name, 'min');
    assert.equal((await failure(f, 'abcdef')).name, 'max');
    assert.equal((await failure(f, 'ABC')).name, 'invalid');
    assert.equal((await failure(f, { a: 1 })).name, 'invalid');
    assert.equal((await failure(f, ['a'])).name, 'invalid');
    assert.equal((await failure(field('s', 'string', {}, { required: true }), '   ')).name, 'required');
  });
  it('validates definitions', () => {
    validate('string', { min: 1, max: 3, pattern: '^a', textarea: true });
    assertConfigError(() => validate('string', { pattern: '(' }), 'modules.article.fields.add.x.pattern');
    assertConfigError(() => validate('string', { min: -1 }), 'modules.article.fields.add.x.min');
    assertConfigError(() => validate('string', { min: 5, max: 2 }), 'modules.article.fields.add.x.min');
    assertConfigError(() => validate('string', { textarea: 'yes' }), 'modules.article.fields.add.x.textarea');
    assertConfigError(() => validate('string', { def: 4 }), 'modules.article.fields.add.x.def');
  });
});

describe('slug', () => {
  const f = field('slug', 'slug');
  it('slugifies', async () => {
    assert.equal(await value(f, 'Hello World!'), 'hello-world');
    assert.equal(await value(f, 42), '42');
    assert.equal(await value(f, undefined), '');
    assert.equal((await failure(f, { a: 1 })).name, 'invalid');
    assert.equal((await failure(field('slug', 'slug', {}, { required: true }), '!!!')).name, 'required');
  });
});

describe('boolean', () => {
  const f = field('b', 'boolean');
  it('converts lossless spellings', async () => {
    for (const input of [true, 'true', 1, '1']) assert.equal(await value(f, input), true);
    for (const input of [false, 'false', 0, '0']) assert.equal(await value(f, input), false);
    assert.equal(await value(f, null), null);
    assert.equal(await value(f, undefined), null);
    assert.equal(await value(field('b', 'boolean', {}, { def: true }), undefined), true);
  });
  it('refuses others and enforces required', async () => {
    for (const input of ['yes', 2, {}, []]) assert.equal((await failure(f, input)).name, 'invalid');
    const required = field('b', 'boolean', {}, { required: true });
    assert.equal((await failure(required, null)).name, 'required');
    assert.equal(await value(required, false), false);
  });
});

describe('integer and float', () => {
  const i = field('i', 'integer', { min: -5, max: 10 });
  const fl = field('f', 'float', { min: 0, max: 1 });
  it('converts', async () => {
    assert.equal(await value(i, 7), 7);
    assert.equal(await value(i, ' -3 '), -3);
    assert.equal(await value(i, '+4'), 4);
    assert.equal(await value(i, ''), null);
    assert.equal(await value(i, null), null);
    assert.equal(await value(fl, '0.5'), 0.5);
    assert.equal(await value(fl, '5e-1'), 0.5);
    assert.equal(await value(fl, '.25'), 0.25);
  });
  it('refuses', async () => {
    assert.equal((await failure(i, 2.5)).name, 'invalid');
    assert.equal((await failure(i, '2.5')).name, 'invalid');
    assert.equal((await failure(i, 'abc')).name, 'invalid');
    assert.equal((await failure(i, '0x10')).name, 'invalid');
    assert.equal((await failure(i, true)).name, 'invalid');
    assert.equal((await failure(field('i', 'integer'), '9007199254740993')).name, 'invalid');
    assert.equal((await failure(i, 11)).name, 'max');
    assert.equal((await failure(i, -6)).name, 'min');
    assert.equal((await failure(fl, 'NaN')).name, 'invalid');
    assert.equal((await failure(fl, 'Infinity')).name, 'invalid');
    assert.equal((await failure(fl, '1e999')).name, 'invalid');
    assert.equal((await failure(fl, 1.5)).name, 'max');
    assert.equal((await failure(field('i', 'integer', {}, { required: true }), '')).name, 'required');
  });
  it('validates definitions', () => {
    validate('integer', { min: 0, max: 3, def: 2 });
    assertConfigError(() => validate('integer', { def: 2.5 }), 'modules.article.fields.add.x.def');
    assertConfigError(() => validate('float', { max: 'x' }), 'modules.article.fields.add.x.max');
    assertConfigError(() => validate('float', { min: 1, def: 0 }), 'modules.article.fields.add.x.def');
  });
});

describe('select and checkboxes', () => {
  const choices = [{ label: 'A', value: 'a' }, { label: 'Three', value: 3 }, { label: 'Yes', value: true }];
  const s = field('s', 'select', { choices });
  const c = field('c', 'checkboxes', { choices });
  it('select converts', async () => {
    assert.equal(await value(s, 'a'), 'a');
    assert.equal(await value(s, '3'), 3);
    assert.equal(await value(s, 'true'), true);
    assert.equal(await value(s, ''), null);
    assert.equal(await value(s, undefined), null);
  });
  it('select refuses', async () => {
    assert.equal((await failure(s, 'b')).name, 'invalid');
    assert.equal((await failure(s, {})).name, 'invalid');
    assert.equal((await failure(field('s', 'select', { choices }, { required: true }), null)).name, 'required');
  });
  it('checkboxes convert', async () => {
    assert.deepEqual(await value(c, ['a', '3', 'a']), ['a', 3]);
    assert.deepEqual(await value(c, 'a'), ['a']);
    assert.deepEqual(await value(c, null), []);
    assert.deepEqual(await value(c, undefined), []);
  });
  it('checkboxes refuse', async () => {
    assert.equal((await failure(c, ['a', 'zzz'])).name, 'invalid');
    assert.equal((await failure(c, 5)).name, 'invalid');
    assert.equal((await failure(field('c', 'checkboxes', { choices }, { required: true }), [])).name, 'required');
  });
  it('validates choices', () => {
    validate('select', { choices, def: 'a' });
    const p = 'modules.article.fields.add.x';
    assertConfigError(() => validate('select', {}), `${p}.choices`);
    assertConfigError(() => validate('select', { choices: [] }), `${p}.choices`);
    assertConfigError(() => validate('select', { choices: [{ label: 'A', value: {} }] }), `${p}.choices.0.value`);
    assertConfigError(() => validate('select', { choices: [{ label: 'A', value: 1 }, { label: 'B', value: 1 }] }), `${p}.choices.1.value`);
    assertConfigError(() => validate('select', { choices, def: 'zzz' }), `${p}.def`);
    assertConfigError(() => validate('checkboxes', { choices, def: 'a' }), `${p}.def`);
  });
});

describe('date, time, dateAndTime', () => {
  const d = field('d', 'date');
  const t = field('t', 'time');
  const dt = field('dt', 'dateAndTime');
  it('date', async () => {
    assert.equal(await value(d, '2024-02-29'), '2024-02-29');
    assert.equal(await value(d, ''), null);
    for (const bad of ['2023-02-29', '2024-13-01', '2024-1-1', 'tomorrow', 20240101]) {
      assert.equal((await failure(d, bad)).name, 'invalid');
    }
  });
  it('time', async () => {
    assert.equal(await value(t, '09:30'), '09:30:00');
    assert.equal(await value(t, '9:05:07'), '09:05:07');
    assert.equal(await value(t, null), null);
    for (const bad of ['24:00', '12:60', '12:00:60', '3pm', 930]) assert.equal((await failure(t, bad)).name, 'invalid');
  });
  it('dateAndTime', async () => {
    assert.equal(await value(dt, '2024-01-02T03:04:05Z'), '2024-01-02T03:04:05.000Z');
    assert.equal(await value(dt, '2024-01-02T03:04:05.123+02:00'), '2024-01-02T01:04:05.123Z');
    assert.equal(await value(dt, '2024-01-02T03:04+0100'), '2024-01-02T02:04:00.000Z');
    assert.equal(await value(dt, '2024-01-02 03:04'), '2024-01-02T03:04:00.000Z');
    assert.equal(await value(dt, ''), null);
    for (const bad of ['2024-01-02', '2024-02-30T00:00Z', '2024-01-02T25:00Z', 'now', 0]) {
      assert.equal((await failure(dt, bad)).name, 'invalid');
    }
    assert.equal((await failure(field('dt', 'dateAndTime', {}, { required: true }), null)).name, 'required');
  });
});

describe('email, url, color', () => {
  it('email', async () => {
    const e = field('e', 'email');
    assert.equal(await value(e, ' a.b@example.com '), 'a.b@example.com');
    assert.equal(await value(e, ''), '');
    for (const bad of ['nope', 'a@b', 'a b@c.d', 5]) assert.equal((await failure(e, bad)).name, 'invalid');
    assert.equal((await failure(field('e', 'email', {}, { required: true }), '')).name, 'required');
  });
  it('url', async () => {
    const u = field('u', 'url');
    for (const good of ['https://example.com/x?y=1', 'http://a.b', 'mailto:a@b.c', 'tel:+123', '/about']) {
      assert.equal(await value(u, good), good);
    }
    assert.equal(await value(u, ''), null);
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', '//evil.com', '/\\evil.com', 'ftp://x', 'relative', 3]) {
      assert.equal((await failure(u, bad)).name, 'invalid');
    }
  });
  it('color', async () => {
    const c = field('c', 'color');
    for (const good of ['#abc', '#abcd', '#AABBCC', '#aabbccdd', 'rgb(1, 2, 3)', 'rgba(1,2,3,0.5)', 'hsl(120deg 50% 50% / 0.3)']) {
      assert.equal(await value(c, good), good);
    }
    assert.equal(await value(c, null), null);
    for (const bad of ['red', '#abcde', 'rgb(1,2)', 'rgb(1,2,3);x', 'url(x)']) assert.equal((await failure(c, bad)).name, 'invalid');
  });
});

describe('password', () => {
  const p = field('password', 'password', { min: 4, max: 20 });
  it('stores the hash made for the write, never the password', async () => {
    assert.equal(await value(p, 'secret'), 'hash-of-secret');
  });
  it('keeps the stored hash when empty or absent', async () => {
    const existing = { password: 'scrypt$old' };
    const { values, errors } = await run(p, '', existing);
    assert.deepEqual(errors, []);
    assert.ok(!('password' in values));
    assert.ok(!('password' in (await run(p, undefined, existing)).values));
    assert.equal(await value(p, null), null);
  });
  it('refuses', async () => {
    assert.equal((await failure(p, 'abc')).name, 'min');
    assert.equal((await failure(p, 'x'.repeat(21))).name, 'max');
    assert.equal((await failure(p, 12345)).name, 'invalid');
    assert.equal((await failure(field('password', 'password', {}, { required: true }), '')).name, 'required');
  });
  it('refuses a password shorter than the configured minimum as invalid, naming the minimum', async () => {
    const error = await failure(field('password', 'password'), 'ab');
    assert.deepEqual(error, { name: 'invalid', path: 'password', message: 'must be at least 3 characters', data: { min: 3 } });
  });
});

describe('array', () => {
  const f = field('list', 'array', { min: 1, max: 3 }, {
    fields: [field('label', 'string', {}, { required: true }), field('n', 'integer')],
  });
  it('converts items keeping valid unique ids', async () => {
    const items = await value(f, [{ _id: 'keep1', label: 'A', n: '2', junk: 1 }, { _id: 'keep1', label: 'B' }, { _id: 'bad id!', label: 'C' }]);
    assert.deepEqual(items, [
      { _id: 'keep1', metaType: 'arrayItem', label: 'A', n: 2 },
      { _id: 'new1', metaType: 'arrayItem', label: 'B', n: null },
      { _id: 'new2', metaType: 'arrayItem', label: 'C', n: null },
    ]);
  });
  it('reports nested errors by item id', async () => {
    const error = await failure(f, [{ _id: 'a1', label: '', n: 'x' }, 'oops']);
    assert.equal(error.name, 'invalid');
    assert.equal(error.path, 'list');
    const nested = (error.data!.errors as FieldError[]).map((e) => [e.name, e.path]);
    assert.deepEqual(nested, [['required', 'a1.label'], ['invalid', 'a1.n'], ['invalid', '1']]);
  });
  it('enforces counts, type and required', async () => {
    assert.equal((await failure(f, [])).name, 'min');
    assert.equal((await failure(f, [{ label: 'a' }, { label: 'b' }, { label: 'c' }, { label: 'd' }])).name, 'max');
    assert.equal((await failure(f, 'x')).name, 'invalid');
    assert.equal((await failure(field('list', 'array', {}, { required: true, fields: f.fields }), null)).name, 'required');
    assert.deepEqual(await value(field('list', 'array', {}, { fields: f.fields }), undefined), []);
  });
  it('validates definitions', () => {
    validate('array', { fields: { add: {} }, max: 2 });
    assertConfigError(() => validate('array', {}), 'modules.article.fields.add.x.fields');
    assertConfigError(() => validate('array', { fields: { add: {} }, max: 1.5 }), 'modules.article.fields.add.x.max');
  });
});

describe('object', () => {
  const f = field('meta', 'object', {}, { fields: [field('color', 'color'), field('n', 'integer', {}, { def: 1 })] });
  it('converts', async () => {
    assert.deepEqual(await value(f, { _id: 'o1', color: '#fff' }), { _id: 'o1', metaType: 'object', color: '#fff', n: 1 });
    const kept = await value(f, { color: '#000' }, { meta: { _id: 'old', color: '#fff', n: 4 } });
    assert.deepEqual(kept, { _id: 'old', metaType: 'object', color: '#000', n: 1 });
  });
  it('defaults to the nested defaults', async () => {
    assert.deepEqual(await value(f, undefined), { _id: 'new1', metaType: 'object', color: null, n: 1 });
  });
  it('refuses', async () => {
    assert.equal((await failure(f, 'x')).name, 'invalid');
    const error = await failure(f, { color: 'blue' });
    assert.deepEqual((error.data!.errors as FieldError[]).map((e) => e.path), ['color']);
  });
});

describe('area', () => {
  const f = field('body', 'area', { options: { widgets: { '@cms/rich-text': {}, hero: {} } } });
  it('converts an area object, sanitizing rich text', async () => {
    const area = (await value(f, {
      _id: 'area1',
      metaType: 'area',
      items: [
        { _id: 'w1', type: '@cms/rich-text', content: '<p style="text-align: center; position: fixed">Hi<script>x()</script> <a href="javascript:x()">j</a> <a href="/ok">o</a></p>' },
        { _id: 'w1', type: 'hero', heading: 'Big', count: '2' },
      ],
    })) as { _id: string; items: Record<string, unknown>[] };
    assert.equal(area._id, 'area1');
    assert.deepEqual(area.items[0], {
      _id: 'w1', metaType: 'widget', type: '@cms/rich-text', cmsPlaceholder: false,
      content: '<p style="text-align:center">Hi <a>j</a> <a href="/ok">o</a></p>', permalinkIds: [], imageIds: [],
    });
    assert.deepEqual(area.items[1], { _id: 'new1', metaType: 'widget', type: 'hero', cmsPlaceholder: false, heading: 'Big', count: 2 });
  });
  it('accepts a bare array and a string', async () => {
    const fromArray = (await value(f, [{ type: '@cms/rich-text', content: '<b>x</b><img src="x.png" onerror="y">' }])) as { items: { content: string }[] };
    assert.equal(fromArray.items[0]!.content, '<b>x</b><img src="x.png" />');
    const fromText = (await value(f, 'a < b & "c"')) as { items: { content: string; type: string }[] };
    assert.equal(fromText.items.length, 1);
    assert.equal(fromText.items[0]!.type, '@cms/rich-text');
    assert.equal(fromText.items[0]!.content, 'a &lt; b &amp; &#34;c&#34;', 'escaped as the original escapes plain text');
  });
  it('keeps the stored area id', async () => {
    const area = (await value(f, [], { body: { _id: 'stored', metaType: 'area', items: [] } })) as { _id: string };
    assert.equal(area._id, 'stored');
  });
  it('refuses unknown and disallowed widgets with their index', async () => {
    const error = await failure(f, { items: [{ type: 'hero', heading: '' }, { type: '@cms/image' }, { type: 'ghost' }, 5] });
    assert.equal(error.name, 'invalid');
    const nested = (error.data!.errors as FieldError[]).map((e) => [e.name, e.path]);
    assert.deepEqual(nested, [['required', '0.heading'], ['invalid', '1.type'], ['invalid', '2.type'], ['invalid', '3']]);
    const content = await failure(f, { items: [{ type: '@cms/rich-text', content: 5 }] });
    assert.deepEqual((content.data!.errors as FieldError[]).map((e) => e.path), ['0.content']);
    assert.equal((await failure(f, 42)).name, 'invalid');
  });
  it('enforces required and defaults', async () => {
    assert.equal((await failure(field('body', 'area', {}, { required: true }), { items: [] })).name, 'required');
    assert.deepEqual(await value(f, undefined), { _id: 'new1', metaType: 'area', items: [] });
  });
  it('validates definitions', () => {
    validate('area', { options: { widgets: { hero: {} }, max: 2 } });
    assertConfigError(() => validate('area', { options: { widgets: [] } }), 'modules.article.fields.add.x.options.widgets');
    assertConfigError(() => validate('area', { options: { widgets: { hero: 1 } } }), 'modules.article.fields.add.x.options.widgets.hero');
    assertConfigError(() => validate('area', { options: { nope: 1 } }), 'modules.article.fields.add.x.options.nope');
    assertConfigError(() => validate('area', { def: {} }), 'modules.article.fields.add.x.def');
    assertConfigError(() => validate('object', { fields: { add: {} }, def: {} }), 'modules.article.fields.add.x.def');
  });
});

describe('relationship', () => {
  const f = field('_topics', 'relationship', { max: 2 });
  it('resolves refs in order, folding repeats and dropping unknowns, in one lookup', async () => {
    const { values, errors, ctx } = await run(f, ['topic2:en:draft', { _id: 'topic1' }, 'Dogs', 'nobody']);
    assert.deepEqual(errors, []);
    assert.deepEqual(values, { topicsIds: ['topic2', 'topic1'], topicsFields: { topic2: {}, topic1: {} } });
    assert.equal(ctx.resolveCalls, 1);
  });
  it('accepts the name without underscore and comma-separated strings', async () => {
    const ctx = makeContext();
    const { values } = await convertSchema({ fields: [f], input: { topics: 'Cats, Birds' }, ctx, registry });
    assert.deepEqual(values.topicsIds, ['topic1', 'topic3']);
    assert.deepEqual((await run(f, null)).values, { topicsIds: [], topicsFields: {} });
  });
  it('converts _fields with the relationship schema', async () => {
    const withFields = field('_topics', 'relationship', {}, { fields: [field('role', 'string', {}, { required: true })] });
    const { values } = await run(withFields, [{ _id: 'topic1', _fields: { role: 'lead' } }]);
    assert.deepEqual(values.topicsFields, { topic1: { role: 'lead' } });
    const error = await failure(withFields, [{ _id: 'topic1', _fields: {} }]);
    assert.deepEqual((error.data!.errors as FieldError[]).map((e) => e.path), ['topic1.role']);
  });
  it('refuses', async () => {
    assert.equal((await failure(f, ['topic1', 'topic2', 'topic3'])).name, 'max');
    assert.equal((await failure(field('_topics', 'relationship', { min: 2 }), ['topic1'])).name, 'min');
    assert.equal((await failure(f, [5])).name, 'invalid');
    assert.equal((await failure(f, { _id: 'topic1' })).name, 'invalid');
    assert.equal((await failure(field('_topics', 'relationship', {}, { required: true }), ['nobody'])).name, 'required');
  });
  it('reads, writes and names its keys', () => {
    const type = registry.get('relationship')!;
    const author = field('author', 'relationship', { withType: '@cms/user' });
    assert.deepEqual(type.storageKeys!(author), ['authorIds', 'authorFields']);
    assert.deepEqual(type.inputKeys!(author), ['_author', 'author']);
    assert.deepEqual(type.read!({ authorIds: ['u1'] }, author), ['u1']);
    assert.deepEqual(type.read!({}, author), []);
  });
  it('validates definitions', () => {
    validate('relationship', {}, 'modules.article.fields.add._topics');
    validate('relationship', { withType: '@cms/user', builders: { project: { title: 1 } } }, 'm.f._author');
    assertConfigError(() => validate('relationship', {}, 'm.f._author'), 'm.f._author.withType');
    assertConfigError(() => validate('relationship', { withType: 'ghost' }, 'm.f.x'), 'm.f.x.withType');
    assertConfigError(() => validate('relationship', { withType: 'topic', builders: { limit: 1 } }, 'm.f.x'), 'm.f.x.builders.limit');
    assertConfigError(() => validate('relationship', { withType: 'topic', builders: { project: { title: 0 } } }, 'm.f.x'), 'm.f.x.builders.project.title');
  });
});

describe('attachment', () => {
  const f = field('file', 'attachment', { extensions: ['pdf'] });
  it('stores a copy of the record the store holds, whatever else the input claims', async () => {
    const input = { _id: 'pdf1', name: 'forged', extension: 'exe', md5: 'forged', _url: '/x', group: 'images' };
    assert.deepEqual(await value(f, input), { ...attachmentRecords.pdf1, crop: null });
    assert.equal(await value(f, null), null);
    assert.equal(await value(f, undefined), null);
  });
  it('keeps a crop only when it is one of the record\'s crops', async () => {
    const image = field('image', 'attachment', { fileGroups: ['images'] });
    const crop = { top: 0, left: 1, width: 2, height: 3 };
    assert.deepEqual(await value(image, { _id: 'img1', crop: { ...crop, extra: 1 } }), { ...attachmentRecords.img1, crop });
    assert.equal((await failure(image, { _id: 'img1', crop: { ...crop, top: 5 } })).name, 'invalid');
    assert.equal((await failure(image, { _id: 'img1', crop: 'x' })).name, 'invalid');
  });
  it('refuses', async () => {
    assert.equal((await failure(f, 'pdf1')).name, 'invalid');
    assert.equal((await failure(f, { _id: 'bad id' })).name, 'invalid');
    assert.equal((await failure(f, { _id: 'unknown' })).name, 'invalid');
    assert.equal((await failure(f, { _id: 'img1', extension: 'pdf' })).name, 'invalid');
    assert.match((await failure(field('i', 'attachment', { fileGroups: ['images'] }), { _id: 'pdf1' })).message ?? '', /File type pdf was not accepted/);
    assert.equal((await failure(field('file', 'attachment', {}, { required: true }), null)).name, 'required');
  });
  it('validates definitions', () => {
    validate('attachment', { fileGroups: ['images'], extensions: ['pdf'] });
    assertConfigError(() => validate('attachment', { fileGroups: 'images' }), 'modules.article.fields.add.x.fileGroups');
  });
});
