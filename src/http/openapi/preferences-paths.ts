import type { AppConfig } from '../../content/app-config.js';
import type { JsonSchema } from '../../content/fields/value-schema.js';
import { themes } from '../../content/preferences/user-preferences.js';
import { maxPerPage } from '../../content/documents/operations/list.js';
import { jsonBody, jsonResponse, responses, security, type Operation } from './operations.js';

/** The routes of `routes/preferences.ts`: each signed-in user's admin preferences. */
export function preferencesPaths(config: AppConfig): Record<string, Record<string, Operation>> {
  const name: JsonSchema = { type: 'string', minLength: 1, maxLength: config.limits.preferencesNameLength };
  const list: JsonSchema = {
    type: 'object',
    additionalProperties: false,
    properties: {
      columns: { type: 'array', items: name, maxItems: config.limits.preferencesListColumns, uniqueItems: true, description: 'The columns shown, in order' },
      sort: { ...name, description: 'The sort the list opens with' },
      perPage: { type: 'integer', minimum: 1, maximum: maxPerPage },
    },
  };
  const theme: JsonSchema = { enum: [...themes], description: '`system` follows the browser\'s `prefers-color-scheme`' };
  const language: JsonSchema = { type: ['string', 'null'], pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$', maxLength: 16, description: 'The admin\'s language; null: the browser\'s' };
  const whole: JsonSchema = {
    type: 'object',
    required: ['theme', 'language', 'lists'],
    additionalProperties: false,
    properties: { theme, language, lists: { type: 'object', additionalProperties: list, description: 'By piece type' } },
  };
  const description =
    'Only for a signed-in user (a session or a bearer token): an API key or an anonymous caller is refused with 403. A user who saved none has the defaults.';
  return {
    '/api/v1/@cms/preferences': {
      get: {
        tags: ['@cms/user'],
        operationId: 'getPreferences',
        summary: "The caller's admin preferences",
        description,
        security: security({ anonymous: false, write: false }),
        responses: responses({ 200: jsonResponse('The preferences, every key present', whole) }, [], false),
      },
      patch: {
        tags: ['@cms/user'],
        operationId: 'updatePreferences',
        summary: "Change some of the caller's admin preferences",
        description: [
          description,
          'The keys sent replace those stored; in `lists`, the keys of a type\'s entry replace those stored for it and `null` removes the type\'s entry.',
          'Unknown keys, a type that is not configured or a value out of its bounds are refused with 400 and nothing is stored;',
          `more than \`limits.preferencesListTypes\` types with 400, more than \`limits.preferencesBytes\` as JSON with 413.`,
        ].join(' '),
        security: security({ anonymous: false, write: true }),
        requestBody: jsonBody({
          type: 'object',
          additionalProperties: false,
          properties: {
            theme,
            language,
            lists: { type: 'object', maxProperties: config.limits.preferencesListTypes, additionalProperties: { oneOf: [list, { type: 'null' }] } },
          },
        }),
        responses: responses({ 200: jsonResponse('The preferences after the change, whole', whole) }, [], true),
      },
    },
  };
}
