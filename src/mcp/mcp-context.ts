import type { Caller } from '../content/documents/caller.js';
import type { DocumentOperations } from '../content/documents/document-operations.js';
import type { SchemaDescriber } from '../content/schema/describe-schema.js';
import type { CallAudit } from '../content/audit/call-audit.js';
import { NotFoundError } from '../errors/app-error.js';
import { unknownPieceType } from '../content/types/unknown-type.js';

/** The one JSON error shape of the REST interface. */
export interface ErrorBody {
  readonly name: string;
  readonly message: string;
  readonly data: Record<string, unknown>;
}

/**
 * How the REST interface answers an error: its status and body. It is `http/error-mapper.ts`'s
 * `mapError`, given by the composition root: this layer knows no HTTP.
 */
export type DescribeError = (error: unknown) => { readonly status: number; readonly body: ErrorBody; readonly internal: boolean };

/** What the MCP server is built on, the same for every caller: the composition root (or `cms mcp`) makes it once. */
export interface McpDeps {
  readonly documents: DocumentOperations;
  readonly schema: SchemaDescriber;
  /** Every piece type a route serves: a name outside them is the REST interface's "no piece type" 404. */
  readonly typeNames: ReadonlySet<string>;
  readonly audit: CallAudit;
  readonly describeError: DescribeError;
  /** A failure that is not the caller's (its answer says only "An error occurred."), or an audit record not written. */
  readonly onInternalError: (error: unknown, what: string) => void;
}

/** One caller's view of the server: what every tool works with. */
export interface McpContext {
  /** Who asks, without a version: each tool names its locale and mode. */
  readonly caller: Caller;
  readonly documents: DocumentOperations;
  /** The schema answer the caller's role sees, or its one type (404 as for an unreadable type). */
  describeTypes(type?: string): Record<string, unknown>;
  /** The type name, refused as the REST interface refuses a path of no piece type. */
  servedType(name: string): string;
}

export function mcpContext(deps: McpDeps, caller: Caller): McpContext {
  const servedType = (name: string) => {
    if (!deps.typeNames.has(name)) throw unknownPieceType(name, deps.documents.readableTypeNames(caller.principal));
    return name;
  };
  return {
    caller,
    documents: deps.documents,
    servedType,
    describeTypes(type) {
      const schema = JSON.parse(deps.schema.describe(caller.principal).json) as { types: Record<string, unknown> };
      if (type === undefined) return schema;
      const described = schema.types[servedType(type)];
      if (described === undefined) throw new NotFoundError();
      return { ...schema, types: { [type]: described } };
    },
  };
}
