import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpContext } from './mcp-context.js';

/**
 * The MCP resources: the schema the caller's role sees, and each document by URI, read as
 * `getDocument` reads it (the caller's rights, the REST route's refusals). Documents are not
 * listed: `findDocuments` finds them, and a list of every document would ignore paging.
 */

const schemaUri = 'cms://schema';
const json = 'application/json';

export const resources = [
  { uri: schemaUri, name: 'schema', title: 'The piece types and their fields', description: 'As GET /api/v1/@cms/schema answers the caller', mimeType: json },
];

export const resourceTemplates = [
  {
    uriTemplate: 'cms://documents/{type}/{id}{?locale,mode}',
    name: 'document',
    title: 'One document',
    description: 'As GET /api/v1/<type>/<id> answers the caller; a type with a slash is percent-encoded (`%40cms%2Fuser`)',
    mimeType: json,
  },
];

type ResourceTarget =
  | { readonly kind: 'schema' }
  | { readonly kind: 'document'; readonly type: string; readonly id: string; readonly locale?: string; readonly mode?: 'draft' | 'published' };

export async function readResource(context: McpContext, uri: string): Promise<{ uri: string; mimeType: string; text: string }[]> {
  const target = resourceTarget(uri);
  const value =
    target.kind === 'schema'
      ? context.describeTypes()
      : (await context.documents.getOne({ ...context.caller, locale: target.locale, mode: target.mode }, context.servedType(target.type), target.id, {})).document;
  return [{ uri, mimeType: json, text: JSON.stringify(value) }];
}

/** What a URI names; one this server does not serve is a protocol error. */
function resourceTarget(uri: string): ResourceTarget {
  const url = URL.canParse(uri) ? new URL(uri) : null;
  if (url?.protocol === 'cms:' && url.host === 'schema' && (url.pathname === '' || url.pathname === '/')) return { kind: 'schema' };
  const segments = url?.protocol === 'cms:' && url.host === 'documents' ? url.pathname.split('/').slice(1) : [];
  const [type, id] = segments.map(decodedSegment);
  const mode = url?.searchParams.get('mode') ?? undefined;
  if (segments.length !== 2 || !type || !id || (mode !== undefined && mode !== 'draft' && mode !== 'published')) {
    throw new McpError(ErrorCode.InvalidParams, `Unknown resource "${uri.slice(0, 200)}": read ${schemaUri} or cms://documents/<type>/<id>[?locale=…&mode=draft|published]`);
  }
  return { kind: 'document', type, id, locale: url!.searchParams.get('locale') ?? undefined, mode };
}

function decodedSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
