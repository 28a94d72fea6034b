import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Caller } from '../../content/documents/caller.js';
import { UnauthorizedError } from '../../errors/app-error.js';
import { callerOf } from '../caller.js';

export const mcpPath = '/api/v1/@cms/mcp';

export interface McpRouteDeps {
  /** Answers one JSON-RPC POST on the raw request and response (the MCP server's Streamable HTTP transport). */
  readonly answer: (caller: Caller, request: IncomingMessage, response: ServerResponse, body: unknown) => Promise<void>;
  /** `mcp.anonymous`: callers without a credential may use it, as anonymous readers. */
  readonly anonymous: boolean;
}

const anonymousRefused = () =>
  new UnauthorizedError(
    'The MCP server needs an API key (Authorization: ApiKey <key>) or a bearer token (Authorization: Bearer <token>); anonymous callers are refused unless the configuration sets mcp.anonymous',
  );

/**
 * The MCP server over Streamable HTTP, stateless: every POST carries its credentials, which the
 * auth hook has resolved as for any REST route, and gets one JSON answer. Body limits, connection
 * caps and the JSON parser's bounds are the REST routes'. No session means no stream to open (GET)
 * and none to end (DELETE): both are 405, as the transport's specification says a stateless server answers.
 */
export function registerMcpRoutes(app: FastifyInstance, deps: McpRouteDeps): void {
  app.post(mcpPath, async (request, reply) => {
    if (request.principal.kind === 'anonymous' && !deps.anonymous) throw anonymousRefused();
    // Each tool names its own locale and mode: the query's are not the caller's.
    const { locale: _locale, mode: _mode, ...caller } = callerOf(request);
    reply.hijack();
    try {
      await deps.answer(caller, request.raw, reply.raw, request.body);
    } catch (error) {
      request.log.error({ err: error }, 'answering an MCP request failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      reply.raw.end(JSON.stringify({ name: 'error', message: 'An error occurred.', data: {} }));
    }
  });
  const noStream = async (_request: unknown, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({ name: 'invalid', message: 'This MCP server is stateless: send each JSON-RPC message as a POST; there is no session to stream or end', data: {} });
  app.get(mcpPath, noStream);
  app.delete(mcpPath, noStream);
}
