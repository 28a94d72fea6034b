import cluster from 'node:cluster';
import { loadAppConfig } from './load-app-config.js';
import type { AppOptions } from './app.js';
import type { AppConfig } from './content/app-config.js';
import { runPrimary } from './cluster/primary.js';
import { startLines } from './config/start-lines.js';

/**
 * Process entry: load the configuration, then serve alone (`CMS_WORKERS=1`, the default), or
 * start the primary of several workers, or serve as one of its workers.
 */
async function main(): Promise<void> {
  const config = await loadAppConfig({ env: process.env, cwd: process.cwd() });
  if (cluster.isWorker) {
    // The primary migrated the store, made the setup code and logs what is said once at start.
    await serve(config, { preparedByPrimary: true }, []);
  } else if (config.workers > 1) {
    await runPrimary(config, { startWarnings: startWarnings(config) });
  } else {
    await serve(config, {}, startWarnings(config));
  }
}

/** Builds the app, listens, and closes cleanly on SIGINT or SIGTERM: requests in flight finish. */
async function serve(config: AppConfig, options: AppOptions, warnings: readonly string[]): Promise<void> {
  // Loaded here, not at the top: a primary serves nothing and need not hold Fastify, sharp and the routes.
  const { buildApp } = await import('./app.js');
  const app = await buildApp(config, options);
  let closing = false;
  const close = async (signal: string) => {
    // A worker gets SIGINT from the terminal and SIGTERM from its primary: one close is enough.
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void close('SIGINT'));
  process.once('SIGTERM', () => void close('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  // A worker of several says nothing at start: its primary says it once.
  if (!options.preparedByPrimary) {
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    for (const line of startLines(config, [...config.pieceTypes.keys()], port)) app.log.info(line.data, line.msg);
  }
  for (const warning of warnings) app.log.warn(warning);
}

function startWarnings(config: AppConfig): string[] {
  return [...(config.publicDemoKeys ? [demoWarning(config.host)] : []), ...connectionWarnings(config.limits)];
}

/**
 * A per-address cap at or above the total lets one address take every connection again: right
 * behind a proxy that limits each client itself (every socket then comes from the proxy), a
 * mistake otherwise.
 */
function connectionWarnings({ connections, connectionsPerAddress }: AppConfig['limits']): string[] {
  if (connectionsPerAddress < connections) return [];
  return [
    `limits.connectionsPerAddress (${connectionsPerAddress}) is not below limits.connections (${connections}): one client address can hold every connection. ` +
      'Keep it so only behind a proxy that limits each client; otherwise lower it (CMS_LIMIT_CONNECTIONS_PER_ADDRESS).',
  ];
}

function demoWarning(host: string): string {
  return (
    `The bundled demo runs with its PUBLIC API keys (dev-admin-key-change-me is admin, printed in the README), listening on ${host} only. ` +
    'Before anyone else can reach this server, set CMS_CONFIG to your own configuration file (or write ./cms.config.mjs), or CMS_API_KEYS to your own keys.'
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
