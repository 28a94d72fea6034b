import { Type, type Static, type TObject } from '@sinclair/typebox';
import type { Caller } from '../content/documents/caller.js';
import type { McpAuditedCall } from '../core/audit.js';
import type { McpContext } from './mcp-context.js';
import { listQueryOf } from './list-query.js';

/**
 * The MCP tools, each a thin translation onto the document operation its REST route calls, with
 * the same Caller: every permission and every refusal is the route's by construction. The
 * arguments are JSON Schemas (TypeBox), checked before a tool runs.
 */

const typeName = Type.String({ minLength: 1, maxLength: 200, description: 'The piece type, as describeTypes names it (`article`, `@cms/user`)' });
const documentId = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'The document: its `_id` (`<cmsDocId>:<locale>:<mode>`) or its `cmsDocId`',
});
const locale = Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The locale (`cmsLocale`); default: the default locale, or the id\'s' }));
const mode = Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('published')], { description: 'The version (`cmsMode`); default: published' }));
const publishAfter = Type.Optional(Type.Boolean({ description: 'true: publish as well (needs the right to publish); default false: the draft only' }));
const page = Type.Optional(Type.Integer({ minimum: 1, maximum: 999_999_999 }));
const perPage = Type.Optional(Type.Integer({ minimum: 1, maximum: 100 }));
const fieldValues = Type.Record(Type.String(), Type.Unknown());
const strict = { additionalProperties: false } as const;

const schemas = {
  describeTypes: Type.Object({ type: Type.Optional(typeName) }, strict),
  findDocuments: Type.Object(
    {
      type: typeName,
      search: Type.Optional(Type.String({ maxLength: 500, description: 'Words to find (the list\'s `search`)' })),
      filters: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Field filters and list parameters by name, as the REST list\'s query (`{ "category": "news", "_ids": [...] }`)' })),
      sort: Type.Optional(
        Type.Union([Type.Record(Type.String(), Type.Union([Type.Literal(1), Type.Literal(-1)])), Type.Literal('search')], {
          description: '`{ "title": 1, "updatedAt": -1 }`, or `"search"` for relevance',
        }),
      ),
      page,
      perPage,
      cursor: Type.Optional(Type.String({ maxLength: 2000, description: 'The `nextCursor` of the page before' })),
      locale,
      mode,
    },
    strict,
  ),
  getDocument: Type.Object({ type: typeName, id: documentId, locale, mode }, strict),
  createDraft: Type.Object({ type: typeName, fields: fieldValues, locale, publish: publishAfter }, strict),
  patchDraft: Type.Object(
    { type: typeName, id: documentId, patch: Type.Record(Type.String(), Type.Unknown(), { description: 'Fields to set, and PATCH operators (`$push`, `$set`…)' }), locale, publish: publishAfter },
    strict,
  ),
  publish: Type.Object({ type: typeName, id: documentId, locale }, strict),
  schedule: Type.Object(
    {
      type: typeName,
      id: documentId,
      locale,
      publishAt: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'ISO 8601 time to publish the draft; null cancels' })),
      unpublishAt: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'ISO 8601 time to unpublish; null cancels' })),
    },
    strict,
  ),
  readHistory: Type.Object({ type: typeName, id: documentId, locale, page, perPage }, strict),
} satisfies Record<Exclude<McpAuditedCall, 'readResource'>, TObject>;

export type ToolName = keyof typeof schemas;

/** What a tool answers: the REST route's answer, and what the audit record names. */
export interface ToolAnswer {
  readonly value: Record<string, unknown>;
  readonly ids: readonly string[];
}

export interface Tool<N extends ToolName = ToolName> {
  readonly name: N;
  readonly description: string;
  readonly input: (typeof schemas)[N];
  run(context: McpContext, args: Static<(typeof schemas)[N]>): Promise<ToolAnswer>;
}

/** The caller in the version the arguments ask for. */
function asking(context: McpContext, args: { locale?: string; mode?: 'draft' | 'published' }): Caller {
  return { ...context.caller, locale: args.locale, mode: args.mode };
}

/** A version's answer, and its ids for the audit record. */
function versionAnswer(document: Record<string, unknown>): ToolAnswer {
  return { value: document, ids: [document.cmsDocId, document._id].filter((id): id is string => typeof id === 'string') };
}

/** A tool as the server lists and calls it: its arguments are checked against `input` before `run`. */
export interface ListedTool {
  readonly name: ToolName;
  readonly description: string;
  readonly input: TObject;
  run(context: McpContext, args: unknown): Promise<ToolAnswer>;
}

function define<N extends ToolName>(tool: Omit<Tool<N>, 'input'>): ListedTool {
  return { ...tool, input: schemas[tool.name], run: (context, args) => tool.run(context, args as Static<(typeof schemas)[N]>) };
}

export const tools: readonly ListedTool[] = [
  define({
    name: 'describeTypes',
    description: 'The piece types you may read, with their fields and what you may do with each (as GET /api/v1/@cms/schema answers); `type` narrows it to one.',
    run: async (context, args) => ({ value: context.describeTypes(args.type), ids: [] }),
  }),
  define({
    name: 'findDocuments',
    description: 'Lists documents of a type (as GET /api/v1/<type>): search, filters, sort, page and perPage, or the cursor of the page before.',
    run: async (context, args) => {
      const { type, locale: _locale, mode: _mode, ...find } = args;
      const value = await context.documents.list(asking(context, args), context.servedType(type), listQueryOf(find));
      return { value: value as unknown as Record<string, unknown>, ids: [] };
    },
  }),
  define({
    name: 'getDocument',
    description: 'One document (as GET /api/v1/<type>/<id>), in the version and locale asked.',
    run: async (context, args) => versionAnswer((await context.documents.getOne(asking(context, args), context.servedType(args.type), args.id, {})).document),
  }),
  define({
    name: 'createDraft',
    description: 'Creates a document as a draft (as POST /api/v1/<type>?cmsMode=draft); with `publish: true`, published as well (as POST without cmsMode=draft).',
    run: async (context, args) => {
      const caller: Caller = { ...context.caller, locale: args.locale, mode: args.publish === true ? 'published' : 'draft' };
      return versionAnswer((await context.documents.insert(caller, context.servedType(args.type), args.fields)).document);
    },
  }),
  define({
    name: 'patchDraft',
    description: 'Changes the draft of a document (as PATCH /api/v1/<type>/<id>?cmsMode=draft); with `publish: true`, publishes it after (the PATCH\'s `_publish`).',
    run: async (context, args) => {
      const caller: Caller = { ...context.caller, locale: args.locale, mode: 'draft' };
      // Publishing is this tool's `publish` argument alone: a `_publish` among the fields is dropped.
      const { _publish: _dropped, ...fields } = args.patch;
      const body = args.publish === true ? { ...fields, _publish: true } : fields;
      return versionAnswer((await context.documents.patch(caller, context.servedType(args.type), args.id, body)).document);
    },
  }),
  define({
    name: 'publish',
    description: 'Publishes the draft of a document (as POST /api/v1/<type>/<id>/publish); answers the published version.',
    run: async (context, args) => versionAnswer((await context.documents.publish(asking(context, args), context.servedType(args.type), args.id)).document),
  }),
  define({
    name: 'schedule',
    description: 'Schedules the draft to be published or unpublished at a time (as POST /api/v1/<type>/<id>/schedule); null cancels.',
    run: async (context, args) => {
      const { type, id, locale: _locale, ...times } = args;
      return versionAnswer((await context.documents.schedule(asking(context, args), context.servedType(type), id, times)).document);
    },
  }),
  define({
    name: 'readHistory',
    description: 'The saved versions of a document in a locale, newest first (as GET /api/v1/<type>/<id>/history).',
    run: async (context, args) => {
      const query = listQueryOf({ page: args.page, perPage: args.perPage });
      const value = await context.documents.history(asking(context, args), context.servedType(args.type), args.id, query);
      return { value: value as unknown as Record<string, unknown>, ids: [args.id] };
    },
  }),
];
