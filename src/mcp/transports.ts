import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Caller } from '../content/documents/caller.js';
import type { McpDeps } from './mcp-context.js';
import { mcpServer } from './mcp-server.js';

/**
 * Answers one POST of Streamable HTTP, stateless: no session, one JSON answer per request, and
 * a server and transport of its own (the SDK refuses to reuse a stateless transport), both
 * closed once the response is done. `body` is the request's JSON, already parsed (and bounded)
 * by the HTTP layer.
 */
export async function answerMcpRequest(deps: McpDeps, caller: Caller, request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
  const server = mcpServer(deps, caller);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, body);
}

/**
 * Speaks MCP on `input` and `output` (the process's stdin and stdout: nothing else may write
 * there) until the input ends or the client closes; resolves then.
 */
export async function serveMcpOverStdio(deps: McpDeps, caller: Caller, input: Readable, output: Writable): Promise<void> {
  const server = mcpServer(deps, caller);
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  // The SDK's transport does not watch for the end of its input: a client that goes away ends it.
  input.once('end', () => void server.close());
  await server.connect(new StdioServerTransport(input, output));
  await closed;
}
