import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../errors/app-error.js';

/*
 * A preview link opened in a browser whose key no longer works (expired, revoked, unshared) gets
 * a page that says so, rather than bare JSON. Only a navigation that asks for HTML and not for
 * JSON: API clients (and the typed client, which asks `application/json`) get the JSON 404 as
 * before.
 */

/** Whether the request is a browser's navigation: `Accept` names `text/html` and no JSON. */
export function asksForPage(request: FastifyRequest): boolean {
  const accept = (request.headers.accept ?? '').toLowerCase();
  return accept.includes('text/html') && !accept.includes('json');
}

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Preview link expired</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; color: #1f2328; background: #f6f8fa; margin: 0; display: grid; place-items: center; min-height: 100vh; }
  main { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 2rem; max-width: 32rem; }
  h1 { font-size: 1.25rem; margin: 0 0 0.5rem; }
  p { margin: 0; color: #57606a; }
</style>
</head>
<body>
<main>
<h1>This preview link has expired or was revoked</h1>
<p>Ask the person who shared it for a new link.</p>
</main>
</body>
</html>
`;

/** Sends what `send` answers; a 404 of a navigation becomes the page (status 404, never kept). */
export async function withExpiredPage(request: FastifyRequest, reply: FastifyReply, send: () => Promise<FastifyReply>): Promise<FastifyReply> {
  if (!asksForPage(request)) return send();
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return reply.code(404).header('cache-control', 'private, no-store').type('text/html; charset=utf-8').send(page);
  }
}
