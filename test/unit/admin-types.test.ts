import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { adminComponents, adminTypesModule, adminTypesPath, adminTypesSource, referencedComponents } from '../../src/cli/types/admin-types.js';

const repositoryRoot = new URL('../../../', import.meta.url);

describe('the admin types generated from the OpenAPI document', () => {
  it('are committed as the generator writes them (run `npm run generate:admin-types` after changing the document)', async () => {
    const committed = await readFile(new URL(adminTypesPath, repositoryRoot), 'utf8');
    assert.equal(committed, await adminTypesSource(), `${adminTypesPath} differs from what the OpenAPI document gives`);
  });

  it('are the same for every configuration and every run, so the admin can be typed once', async () => {
    const demo = await adminTypesSource();
    assert.equal(await adminTypesSource(), demo);
    const custom = { modules: { note: { extend: '@cms/piece-type', options: { label: 'Note' }, fields: { add: { body: { type: 'area' } } } } } };
    assert.equal(await adminTypesSource({}), demo);
    assert.equal(await adminTypesSource(custom), demo);
  });

  it('declare the chosen components and every component they reference, and nothing of a piece type', async () => {
    const source = await adminTypesSource();
    for (const name of [...adminComponents, 'SchemaField', 'SchemaAreaOptions', 'FieldError', 'Crop']) assert.match(source, new RegExp(`^export (interface|type) ${name}\\b`, 'm'), name);
    assert.doesNotMatch(source, /CmsUser|Article|CmsPieceTypes/);
  });

  it('stop at a component the document lacks', () => {
    const schemas = { A: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } } };
    assert.throws(() => referencedComponents(schemas, ['A']), /no component B/);
    assert.throws(() => adminTypesModule({ components: { schemas } }), /no component/);
  });
});
