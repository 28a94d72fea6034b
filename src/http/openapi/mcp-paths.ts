import { jsonBody, responses, security, type Operation } from './operations.js';
import { ref } from './component-names.js';

const jsonRpcMessage = {
  type: 'object',
  description: 'A JSON-RPC 2.0 message of the Model Context Protocol (`initialize`, `tools/list`, `tools/call`, `resources/read`…)',
  required: ['jsonrpc'],
  properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer'] }, method: { type: 'string' }, params: { type: 'object' } },
};

const stateless = {
  description: 'The server is stateless: there is no session to stream (GET) or end (DELETE)',
  headers: { Allow: { description: '`POST`', schema: { type: 'string' } } },
  content: { 'application/json': { schema: ref('Error') } },
};

/** Both methods a stateful Streamable HTTP server would serve, refused. */
function notStreamed(operationId: string, summary: string): Operation {
  return { tags: ['@cms/mcp'], operationId, summary, security: security({ anonymous: true, write: false }), responses: { 405: stateless } };
}

/** The route of `routes/mcp.ts`: the MCP server over stateless Streamable HTTP. */
export function mcpPaths(): Record<string, Record<string, Operation>> {
  return {
    '/api/v1/@cms/mcp': {
      post: {
        tags: ['@cms/mcp'],
        operationId: 'mcp',
        summary: 'The MCP server (Streamable HTTP, stateless, JSON answers)',
        description: [
          'One JSON-RPC message per POST, with `Accept: application/json, text/event-stream`; the answer is its JSON-RPC response',
          '(a notification gets 202 and no body). The tools and resources act as the caller with the REST routes\' rules and errors:',
          'see docs/guides/mcp.md. Anonymous callers are refused (401) unless the configuration sets `mcp.anonymous`.',
        ].join(' '),
        security: security({ anonymous: true, write: true }),
        requestBody: jsonBody(jsonRpcMessage),
        responses: responses(
          {
            200: { description: 'The JSON-RPC response', content: { 'application/json': { schema: { type: 'object' } } } },
            202: { description: 'A notification or response was accepted; no body' },
          },
          [401],
          true,
        ),
      },
      get: notStreamed('mcpStream', 'Refused: a stateless server opens no stream'),
      delete: notStreamed('mcpEndSession', 'Refused: a stateless server has no session to end'),
    },
  };
}
