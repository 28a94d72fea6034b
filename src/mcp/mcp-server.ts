import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { Value } from '@sinclair/typebox/value';
import type { Caller } from '../content/documents/caller.js';
import type { AuditEntry, McpAuditedCall } from '../core/audit.js';
import { mcpContext, type McpContext, type McpDeps } from './mcp-context.js';
import { tools, type ListedTool } from './tools.js';
import { readResource, resourceTemplates, resources } from './resources.js';

const instructions =
  'A headless CMS. Call describeTypes first: it names the piece types you may read and their fields. ' +
  'Writes go to drafts; publish (or `publish: true`) needs the right to publish. A refused call answers ' +
  'the REST interface\'s error: `{ status, error: { name, message, data } }`.';

/**
 * The MCP server of one caller (an HTTP request, or a `cms mcp` process): the tools and
 * resources over the document operations, acting as that caller. Built per caller, since the
 * caller is fixed for a server's life: stateless HTTP builds one per request.
 */
export function mcpServer(deps: McpDeps, caller: Caller): Server {
  const server = new Server({ name: 'cms', version: '1' }, { capabilities: { tools: {}, resources: {} }, instructions });
  const context = mcpContext(deps, caller);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.input as { type: 'object' } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => callTool(deps, context, toolNamed(request.params.name), request.params.arguments ?? {}));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    try {
      const contents = await readResource(context, uri);
      await recordCall(deps, caller, 'readResource', { ids: [uri], detail: { status: 200 } });
      return { contents };
    } catch (error) {
      if (error instanceof McpError) throw error;
      const { status, body } = describe(deps, error, 'reading an MCP resource');
      await recordCall(deps, caller, 'readResource', { ids: [uri], detail: { status, error: body.name } });
      // The JSON-RPC code the MCP specification gives a resource not found; any other refusal is the request's.
      throw new McpError(status === 404 ? -32002 : status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest, body.message, { status, error: body });
    }
  });
  return server;
}

function toolNamed(name: string): ListedTool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name.slice(0, 100)}": tools/list names them`);
  return tool;
}

/** Arguments that do not match the tool's input schema are a protocol error, as the SDK's own servers answer them. */
function checkArguments(tool: ListedTool, args: unknown): void {
  const failure = Value.Errors(tool.input, args).First();
  if (failure) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for ${tool.name}: ${failure.path || '/'} ${failure.message}`);
}

/**
 * Runs a tool and records the call. A refusal is the tool's result (`isError`), carrying the
 * REST route's status and error body; the write a tool made has recorded itself already.
 */
async function callTool(deps: McpDeps, context: McpContext, tool: ListedTool, args: Record<string, unknown>): Promise<CallToolResult> {
  checkArguments(tool, args);
  const type = stringArgument(args, 'type') ?? null;
  const id = stringArgument(args, 'id');
  const asked = id === undefined ? [] : [id];
  try {
    const answer = await tool.run(context, args);
    await recordCall(deps, context.caller, tool.name, { type, ids: answer.ids.length > 0 ? answer.ids : asked, detail: { status: 200 } });
    return { content: [{ type: 'text', text: JSON.stringify(answer.value) }], structuredContent: answer.value };
  } catch (error) {
    const { status, body } = describe(deps, error, `the MCP tool ${tool.name}`);
    await recordCall(deps, context.caller, tool.name, { type, ids: asked, detail: { status, error: body.name } });
    const refused = { status, error: body };
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(refused) }], structuredContent: refused };
  }
}

/** The piece type or document id a call names, for its audit record. */
function stringArgument(args: Record<string, unknown>, name: 'type' | 'id'): string | undefined {
  const value = args[name];
  return typeof value === 'string' ? value : undefined;
}

function describe(deps: McpDeps, error: unknown, what: string): ReturnType<McpDeps['describeError']> {
  const described = deps.describeError(error);
  if (described.internal) deps.onInternalError(error, `${what} failed`);
  return described;
}

/**
 * The call's audit record. One that cannot be written is logged and the answer still given:
 * the call has happened (a write recorded itself in its own transaction), and refusing its
 * answer now would only hide what was done.
 */
async function recordCall(deps: McpDeps, caller: Caller, call: McpAuditedCall, entry: Omit<AuditEntry, 'action'>): Promise<void> {
  try {
    await deps.audit.record(caller, { action: `mcp.${call}`, ...entry });
  } catch (error) {
    deps.onInternalError(error, `recording the MCP call ${call} in the audit trail failed`);
  }
}
