import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

/**
 * Per-language labels from the configuration: the schema the admin reads carries them as
 * configured, so the admin shows its language; the OpenAPI document and error messages, which
 * need one string, use the English one (else the first given). The schema is read from the
 * configuration, not from the store, so SQLite alone answers for both.
 */
function recipeConfig(): Record<string, unknown> {
  const config = testConfig();
  return {
    ...config,
    modules: {
      ...(config.modules as Record<string, unknown>),
      recipe: {
        extend: '@cms/piece-type',
        options: { label: { en: 'Recipe', de: 'Rezept' }, pluralLabel: { de: 'Rezepte', en: 'Recipes' } },
        fields: {
          add: {
            minutes: { type: 'integer', required: true, label: { en: 'Cooking time', de: 'Kochzeit' }, help: { en: 'In minutes', de: 'In Minuten' } },
            note: { type: 'string', label: 'Note' },
            course: { type: 'select', choices: [{ label: { de: 'Vorspeise', en: 'Starter' }, value: 'starter' }, { label: 'Main', value: 'main' }] },
            diets: { type: 'checkboxes', choices: [{ label: { fr: 'Végétarien', de: 'Vegetarisch' }, value: 'veggie' }] },
          },
        },
      },
    },
  };
}

describe('per-language labels of the configuration', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(recipeConfig());
  });
  after(() => t.close());

  it('serves the labels and help per language in the schema, plain strings as they are', async () => {
    const { status, body } = await t.request('GET', '/api/v1/@cms/schema', { key: 'admin' });
    assert.equal(status, 200);
    const recipe = body.types.recipe;
    assert.deepEqual(recipe.label, { en: 'Recipe', de: 'Rezept' });
    assert.deepEqual(recipe.pluralLabel, { de: 'Rezepte', en: 'Recipes' });
    const minutes = recipe.fields.find((field: { name: string }) => field.name === 'minutes');
    assert.deepEqual(minutes.label, { en: 'Cooking time', de: 'Kochzeit' });
    assert.deepEqual(minutes.help, { en: 'In minutes', de: 'In Minuten' });
    const note = recipe.fields.find((field: { name: string }) => field.name === 'note');
    assert.equal(note.label, 'Note');
    assert.equal(note.help, '');
    assert.equal(body.types.article.label, 'Article', 'types without per-language labels are unchanged');
    const choicesOf = (name: string) => recipe.fields.find((field: { name: string }) => field.name === name).choices;
    assert.deepEqual(choicesOf('course'), [{ label: { de: 'Vorspeise', en: 'Starter' }, value: 'starter' }, { label: 'Main', value: 'main' }]);
    assert.deepEqual(choicesOf('diets'), [{ label: { fr: 'Végétarien', de: 'Vegetarisch' }, value: 'veggie' }]);
  });

  it('labels the list\'s choices of a select or checkboxes with one string: English, else the first', async () => {
    for (const body of [{ title: 'Soup', minutes: 20, course: 'starter', diets: ['veggie'] }, { title: 'Stew', minutes: 90, course: 'main' }]) {
      const created = await t.request('POST', '/api/v1/recipe', { key: 'admin', body });
      assert.equal(created.status, 200, created.text);
    }
    const { status, body } = await t.request('GET', '/api/v1/recipe?choices=course,diets', { key: 'admin' });
    assert.equal(status, 200, JSON.stringify(body));
    const labels = (name: string) => body.choices[name].map((choice: { value: string; label: string }) => [choice.value, choice.label]).sort();
    assert.deepEqual(labels('course'), [['main', 'Main'], ['starter', 'Starter']]);
    assert.deepEqual(labels('diets'), [['veggie', 'Végétarien']]);
  });

  it('uses the English label where one string is needed: the OpenAPI document', async () => {
    const { status, text } = await t.request('GET', '/api/v1/openapi.json', { key: 'admin' });
    assert.equal(status, 200);
    const list = JSON.parse(text).paths['/api/v1/recipe'].get;
    assert.equal(list.summary, 'List Recipes');
    assert.doesNotMatch(text, /Rezept|Kochzeit|Vorspeise|\[object Object\]/, 'no German, and no object where a string belongs');
  });
});
