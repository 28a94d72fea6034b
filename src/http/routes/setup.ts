import type { FastifyInstance } from 'fastify';
import { setupCodeNotice, type FirstRunSetup } from '../../auth/first-run-setup.js';
import { objectBody } from '../schemas.js';
import { refuseForeignOrigin } from '../cross-site.js';

/**
 * First run: `GET` tells the admin whether to offer creating the first admin, `POST` does it
 * for whoever has the setup code. The code is logged once the server listens.
 */
export function registerSetupRoutes(app: FastifyInstance, deps: { setup: FirstRunSetup; code: string | null; baseUrl: string }): void {
  const url = '/api/v1/@cms/setup';
  app.get(url, () => deps.setup.needed());
  app.post(url, { schema: { body: objectBody }, config: { csrfToken: false } }, (request) => {
    refuseForeignOrigin(request, deps.baseUrl);
    return deps.setup.createFirstAdmin(request.body as Record<string, unknown>, { address: request.ip, requestId: request.id });
  });
  const { code } = deps;
  if (code === null) return;
  app.addHook('onListen', async () => {
    app.log.warn(setupCodeNotice(code));
  });
}
