import type { JsonSchema } from '../../content/fields/value-schema.js';
import { ref } from './component-names.js';
import { jsonResponse, responses, security, type Operation } from './operations.js';

const dateTime: JsonSchema = { type: 'string', format: 'date-time' };

function section(items: JsonSchema, description: string): JsonSchema {
  return { type: 'object', required: ['results'], additionalProperties: false, description, properties: { results: { type: 'array', items } } };
}

/** The components of `routes/dashboard.ts`, the same in every configuration (the admin is typed by them). */
export const dashboardComponents: Record<string, JsonSchema> = {
  DashboardDocument: {
    type: 'object',
    description: "A document as a dashboard section lists it: the type's list answer for the caller, reduced to these (a projection may hide some).",
    required: ['_id', 'type'],
    properties: {
      _id: { type: 'string' },
      type: { type: 'string', description: 'Its piece type' },
      cmsDocId: { type: 'string' },
      cmsLocale: { type: 'string' },
      title: { type: 'string' },
      updatedAt: dateTime,
      updatedBy: { type: ['object', 'null'], properties: { _id: { type: ['string', 'null'] }, title: { type: ['string', 'null'] }, username: { type: ['string', 'null'] } } },
      modified: { type: 'boolean' },
      lastPublishedAt: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  DashboardSchedule: {
    type: 'object',
    description: 'A pending scheduled publish or unpublish, with the draft it acts on.',
    required: ['action', 'at', 'document'],
    additionalProperties: false,
    properties: { action: { enum: ['publish', 'unpublish'] }, at: { ...dateTime, description: 'When it runs' }, document: ref('DashboardDocument') },
  },
  Dashboard: {
    type: 'object',
    description: 'Every section of the dashboard, each possibly empty.',
    required: ['locale', 'myDrafts', 'recentlyChanged', 'scheduled', 'needsMyReview'],
    additionalProperties: false,
    properties: {
      locale: { type: 'string', description: 'The locale every section is read in' },
      myDrafts: section(ref('DashboardDocument'), 'Drafts the caller changed last, with unpublished changes, newest first'),
      recentlyChanged: section(ref('DashboardDocument'), 'The latest changed documents, newest first'),
      scheduled: section(ref('DashboardSchedule'), 'Pending schedules, soonest first'),
      needsMyReview: section(ref('DashboardDocument'), 'Drafts of types with review stages, in a stage after the first and before publishFrom, that the caller reviews (or, for publishers, that have no reviewer), newest first'),
    },
  },
};

/** The route of `routes/dashboard.ts`: the admin home screen's sections in one answer. */
export function dashboardPaths(): Record<string, Record<string, Operation>> {
  return {
    '/api/v1/@cms/dashboard': {
      get: {
        tags: ['@cms/user'],
        operationId: 'getDashboard',
        summary: "The signed-in user's dashboard: my drafts, recently changed, scheduled",
        description: [
          'Only for a signed-in user (a session or a bearer token) with the contributor role or higher: a guest, an API key or an anonymous caller is refused with 403.',
          `Each section holds at most \`limits.dashboardItems\` entries, of the configured piece types (users and media have screens of their own), in \`cmsLocale\` (the default locale without it).`,
          'Each type is read as its list reads it for the caller, with the same roles and projection: `myDrafts` are the drafts of the types the caller may edit that the caller changed last and that hold changes no one published, newest first;',
          '`recentlyChanged` the latest changed documents of the types the caller may read (drafts where the caller may read them), newest first;',
          '`scheduled` the pending scheduled publishes and unpublishes of the types whose drafts the caller may read, soonest first. Any other parameter is refused with 400.',
        ].join(' '),
        parameters: [{ name: 'cmsLocale', in: 'query', required: false, schema: { type: 'string' }, description: 'A configured locale (`en`), not a version' }],
        security: security({ anonymous: false, write: false }),
        responses: responses(
          {
            200: jsonResponse('Every section, each possibly empty', ref('Dashboard')),
          },
          [],
          false,
        ),
      },
    },
  };
}
