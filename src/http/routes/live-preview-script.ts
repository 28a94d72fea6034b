import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';

/** The compiled helper of the typed client (`src/client/live-preview.ts`), beside this build. */
const scriptFile = new URL('../../client/live-preview.js', import.meta.url);

/** The public path a front end imports the helper from. */
export const livePreviewScriptPath = '/api/v1/@cms/live-preview.js';

/**
 * GET /api/v1/@cms/live-preview.js: the typed client's `subscribeToLivePreview` as an ES module,
 * for a front end page without a build step (`import { subscribeToLivePreview } from
 * 'https://cms.example.com/api/v1/@cms/live-preview.js'`). Read once, at start; anonymous, so
 * the CORS plugin answers `Access-Control-Allow-Origin: *`, which module scripts need.
 */
export async function registerLivePreviewScriptRoute(app: FastifyInstance): Promise<void> {
  // Without its source map comment: the map is not served.
  const script = (await readFile(scriptFile, 'utf8')).replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n');
  app.get(livePreviewScriptPath, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(script),
  );
}
