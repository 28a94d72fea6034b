import { loadAppConfig } from './load-app-config.js';
import { buildApp } from './app.js';

/** Process entry: load the configuration, build the app, listen, close cleanly on signals. */
async function main(): Promise<void> {
  const config = await loadAppConfig({ env: process.env, cwd: process.cwd() });
  const app = await buildApp(config);
  const close = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void close('SIGINT'));
  process.once('SIGTERM', () => void close('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  if (config.publicDemoKeys) app.log.warn(demoWarning(config.host));
}

function demoWarning(host: string): string {
  return (
    `Running the bundled demo configuration with its PUBLIC API keys (dev-admin-key-change-me is admin) on ${host}. ` +
    'For local use only: set CMS_CONFIG to your own configuration file, or CMS_API_KEYS to your own keys, before anyone else can reach this server.'
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
