import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

/** One piece type holding every field type of the contract, exercised through the REST interface. */
function kitchenConfig(): Record<string, unknown> {
  const config = testConfig();
  const modules = config.modules as Record<string, unknown>;
  modules.kitchen = {
    extend: '@cms/piece-type',
    fields: {
      add: {
        name: { type: 'string', min: 2, max: 10, pattern: '^[A-Za-z ]*$' },
        summary: { type: 'string', textarea: true },
        handle: { type: 'slug' },
        active: { type: 'boolean', def: true },
        count: { type: 'integer', min: 0, max: 10 },
        ratio: { type: 'float', min: 0, max: 1 },
        size: { type: 'select', choices: [{ label: 'Small', value: 's' }, { label: 'Large', value: 'l' }], def: 's' },
        flags: { type: 'checkboxes', choices: [{ label: 'A', value: 'a' }, { label: 'B', value: 'b' }] },
        day: { type: 'date' },
        at: { type: 'time' },
        when: { type: 'dateAndTime' },
        mail: { type: 'email' },
        site: { type: 'url' },
        tint: { type: 'color' },
        secret: { type: 'password', min: 12 },
        steps: { type: 'array', max: 2, fields: { add: { label: { type: 'string', required: true }, n: { type: 'integer' } } } },
        place: { type: 'object', fields: { add: { city: { type: 'string' }, zip: { type: 'integer' } } } },
        mustPick: { type: 'select', required: true, choices: [{ label: 'Yes', value: 'yes' }] },
      },
    },
  };
  modules.guide = {
    extend: '@cms/piece-type',
    fields: {
      add: {
        sections: {
          type: 'array',
          fields: {
            add: {
              heading: { type: 'string', required: true },
              details: {
                type: 'object',
                fields: {
                  add: {
                    note: { type: 'string' },
                    pin: { type: 'password' },
                    links: { type: 'array', fields: { add: { url: { type: 'url', required: true } } } },
                    body: { type: 'area', options: { widgets: { '@cms/rich-text': {}, 'locked-note': {} } } },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
  config.widgets = { 'locked-note': { fields: { add: { text: { type: 'string' }, code: { type: 'password' } } } } };
  return config;
}

describe('field types through the REST interface', () => {
  let t: TestApp;
  let store: StorageAdapter;
  before(async () => {
    t = await startTestApp(kitchenConfig(), {}, { wrapStorage: (adapter) => (store = adapter) });
  });
  after(() => t.close());

  it('gives every field its default', async () => {
    const res = await t.request('POST', '/api/v1/kitchen', { body: { title: 'Defaults', mustPick: 'yes' } });
    assert.equal(res.status, 200, res.text);
    const doc = res.body;
    assert.equal(doc.name, '');
    assert.equal(doc.handle, '');
    assert.equal(doc.active, true);
    assert.equal(doc.count, null);
    assert.equal(doc.ratio, null);
    assert.equal(doc.size, 's');
    assert.deepEqual(doc.flags, []);
    assert.equal(doc.day, null);
    assert.equal(doc.when, null);
    assert.deepEqual(doc.steps, []);
    assert.equal(doc.place.metaType, 'object');
    assert.equal(doc.secret, undefined, 'password values are never returned');
  });

  it('never returns password hashes held in array items, objects or widgets', async () => {
    const body = {
      title: 'Secrets below',
      sections: [
        {
          heading: 'One',
          details: {
            note: 'kept',
            pin: 'a long enough pin',
            body: { items: [{ type: 'locked-note', text: 'visible', code: 'another long secret' }] },
          },
        },
      ],
    };
    const created = await t.request('POST', '/api/v1/guide', { body });
    assert.equal(created.status, 200, created.text);
    const read = await t.request('GET', `/api/v1/guide/${created.body._id}`);
    const listed = await t.request('GET', '/api/v1/guide');
    for (const answer of [created, read, listed]) {
      assert.equal(answer.status, 200);
      assert.doesNotMatch(answer.text, /scrypt|long enough pin|another long secret/);
    }
    const details = read.body.sections[0].details;
    assert.equal(details.note, 'kept');
    assert.equal('pin' in details, false);
    assert.equal(details.body.items[0].text, 'visible');
    assert.equal('code' in details.body.items[0], false);
    // The stored hash survives presenting: a PATCH that does not name it keeps it.
    const patched = await t.request('PATCH', `/api/v1/guide/${created.body._id}`, { body: { title: 'Renamed' } });
    assert.equal(patched.status, 200, patched.text);
    const [doc] = await store.documents.find({ type: 'guide', ids: [created.body._id], limit: 1 });
    const storedDetails = (doc!.sections as { details: { pin: unknown; body: { items: { code: unknown }[] } } }[])[0]!.details;
    assert.match(String(storedDetails.pin), /^scrypt\$/);
    assert.match(String(storedDetails.body.items[0]!.code), /^scrypt\$/);
  });

  it('converts valid input losslessly into stored values', async () => {
    const res = await t.request('POST', '/api/v1/kitchen', {
      body: {
        title: 'Valid',
        mustPick: 'yes',
        name: '  Ada  ',
        summary: 'line one\nline two',
        handle: 'Hello World!',
        active: 'false',
        count: '7',
        ratio: '0.25',
        size: 'l',
        flags: 'b',
        day: '2024-02-29',
        at: '09:30',
        when: '2024-05-01T10:00:00+02:00',
        mail: 'ada@example.com',
        site: 'https://example.com/a?b=c',
        tint: '#aabbcc',
        secret: 'long enough secret',
        steps: [{ label: 'one', n: '1' }],
        place: { city: 'Oslo', zip: '150' },
      },
    });
    assert.equal(res.status, 200, res.text);
    const doc = res.body;
    assert.equal(doc.name, 'Ada');
    assert.equal(doc.summary, 'line one\nline two');
    assert.equal(doc.handle, 'hello-world');
    assert.equal(doc.active, false);
    assert.equal(doc.count, 7);
    assert.equal(doc.ratio, 0.25);
    assert.equal(doc.size, 'l');
    assert.deepEqual(doc.flags, ['b']);
    assert.equal(doc.day, '2024-02-29');
    assert.equal(doc.at, '09:30:00');
    assert.equal(doc.when, '2024-05-01T08:00:00.000Z');
    assert.equal(doc.mail, 'ada@example.com');
    assert.equal(doc.site, 'https://example.com/a?b=c');
    assert.equal(doc.tint, '#aabbcc');
    assert.equal(doc.secret, undefined);
    assert.equal(doc.steps.length, 1);
    assert.equal(doc.steps[0].label, 'one');
    assert.equal(doc.steps[0].n, 1);
    assert.equal(doc.steps[0].metaType, 'arrayItem');
    assert.match(doc.steps[0]._id, /^[a-z0-9]+$/);
    assert.equal(doc.place.city, 'Oslo');
    assert.equal(doc.place.zip, 150);
    assert.ok(!res.text.includes('long enough secret'));
    assert.ok(!res.text.includes('scrypt'));
  });

  it('refuses each invalid value with an error naming its path, and stores nothing', async () => {
    const before = (await t.request('GET', '/api/v1/kitchen?perPage=1')).body.pages;
    const res = await t.request('POST', '/api/v1/kitchen', {
      body: {
        title: 'Invalid',
        name: 'A',
        active: 'maybe',
        count: 11,
        ratio: 'half',
        size: 'xl',
        flags: ['c'],
        day: '2023-02-29',
        at: '25:00',
        when: 'yesterday',
        mail: 'not-an-email',
        site: 'javascript:alert(1)',
        tint: 'blue-ish',
        secret: 'elevenchars',
        steps: [{ n: 'x' }, { label: 'b' }, { label: 'c' }],
        place: 'Oslo',
      },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.name, 'invalid');
    const byPath = new Map(res.body.data.errors.map((e: { path: string; name: string }) => [e.path, e.name]));
    const expected: Record<string, string> = {
      name: 'min',
      active: 'invalid',
      count: 'max',
      ratio: 'invalid',
      size: 'invalid',
      flags: 'invalid',
      day: 'invalid',
      at: 'invalid',
      when: 'invalid',
      mail: 'invalid',
      site: 'invalid',
      tint: 'invalid',
      secret: 'min',
      place: 'invalid',
      mustPick: 'required',
    };
    for (const [path, name] of Object.entries(expected)) assert.equal(byPath.get(path), name, `${path}: ${res.text}`);
    const steps = res.body.data.errors.find((e: { path: string }) => e.path === 'steps');
    assert.ok(steps, 'array errors are reported under the field');
    assert.equal((await t.request('GET', '/api/v1/kitchen?perPage=1')).body.pages, before);
  });

  it('names nested array errors by item id and subfield', async () => {
    const res = await t.request('POST', '/api/v1/kitchen', {
      body: { title: 'Nested', mustPick: 'yes', steps: [{ _id: 'item1', n: 'x' }] },
    });
    assert.equal(res.status, 400);
    const steps = res.body.data.errors.find((e: { path: string }) => e.path === 'steps');
    assert.equal(steps.name, 'invalid');
    const paths = steps.data.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ['item1.label', 'item1.n']);
  });

  it('refuses the string pattern and keeps a stored password when a PUT omits it', async () => {
    const bad = await t.request('POST', '/api/v1/kitchen', { body: { title: 'Pattern', mustPick: 'yes', name: 'Ada1' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.data.errors[0].path, 'name');
    const created = await t.request('POST', '/api/v1/kitchen', { body: { title: 'Secretive', mustPick: 'yes', secret: 'a long secret' } });
    const replaced = await t.request('PUT', `/api/v1/kitchen/${created.body._id}`, { body: { title: 'Secretive 2', mustPick: 'yes' } });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.secret, undefined);
  });

  it('nests arrays and objects to any depth, with ids and metaTypes at every level', async () => {
    const res = await t.request('POST', '/api/v1/guide', {
      body: {
        title: 'Deep',
        sections: [{
          _id: 'sec1',
          heading: 'One',
          scopedArrayName: 'doc.other.sections',
          details: { note: 'n', links: [{ url: 'https://example.com/a' }], body: '<b>x</b>', scopedObjectName: 'mine' },
        }],
      },
    });
    assert.equal(res.status, 200, res.text);
    const [section] = res.body.sections;
    assert.equal(section._id, 'sec1');
    assert.equal(section.metaType, 'arrayItem');
    // Named as the original names them: the document's type and the field, at any depth; never as sent.
    assert.equal(section.scopedArrayName, 'doc.guide.sections');
    assert.equal(section.details.metaType, 'object');
    assert.equal(section.details.scopedObjectName, 'doc.guide.details');
    assert.equal(section.details.links[0].scopedArrayName, 'doc.guide.links');
    assert.match(section.details._id, /^[A-Za-z0-9_-]+$/);
    const [link] = section.details.links;
    assert.equal(link.metaType, 'arrayItem');
    assert.equal(link.url, 'https://example.com/a');
    assert.match(link._id, /^[A-Za-z0-9_-]+$/);
    assert.equal(section.details.body.metaType, 'area');
    assert.equal(section.details.body._docId, res.body._id);
    assert.equal(section.details.body.items[0].content, '&lt;b&gt;x&lt;/b&gt;', 'a string is escaped plain text, as the original stores it');

    const read = await t.request('GET', `/api/v1/guide/${res.body._id}`);
    assert.deepEqual(read.body.sections, res.body.sections, 'ids are stored, not made up on read');
  });

  it('names errors deep inside arrays and objects by the path of each level', async () => {
    const count = async () => (await t.request('GET', '/api/v1/guide?count=1')).body.count;
    const before = await count();
    const res = await t.request('POST', '/api/v1/guide', {
      body: {
        title: 'Broken',
        sections: [{ _id: 'sec1', heading: 'Fine', details: { links: [{ _id: 'l1', url: 'javascript:alert(1)' }, { _id: 'l2' }] } }],
      },
    });
    assert.equal(res.status, 400, res.text);
    const [sections] = res.body.data.errors;
    assert.equal(sections.path, 'sections');
    assert.equal(sections.name, 'invalid');
    const [details] = sections.data.errors;
    assert.equal(details.path, 'sec1.details');
    assert.equal(details.name, 'invalid');
    const [links] = details.data.errors;
    assert.equal(links.path, 'links');
    assert.deepEqual(
      links.data.errors.map((e: { path: string; name: string; code: number }) => [e.path, e.name, e.code]),
      [['l1.url', 'invalid', 400], ['l2.url', 'required', 422]],
    );
    assert.equal(await count(), before, 'nothing stored');
  });
});
