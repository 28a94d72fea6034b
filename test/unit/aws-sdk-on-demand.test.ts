import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const built = (path: string) => new URL(`../../${path}`, import.meta.url).href;

/**
 * Run in a process where importing `@aws-sdk/*` throws: the whole server's module graph loads,
 * an app on local files is built and closed, then a bucket's file store is asked for, which
 * must reach the refused import (else the hook proved nothing). Prints what happened.
 */
const script = `
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const { buildApp } = await import(${JSON.stringify(built('src/app.js'))});
const { loadAppConfig } = await import(${JSON.stringify(built('src/load-app-config.js'))});
const { createFileStorage } = await import(${JSON.stringify(built('src/media/create-file-storage.js'))});
const dataDir = await mkdtemp(join(tmpdir(), 'cms-aws-sdk-'));
try {
  const config = await loadAppConfig({ env: { CMS_DATA_DIR: dataDir, CMS_LOG_LEVEL: 'silent' }, cwd: dataDir, config: {} });
  const app = await buildApp(config);
  await app.ready();
  await app.close();
  console.log('local: built');
  const s3 = { kind: 's3', bucket: 'b', region: 'us-east-1', forcePathStyle: true };
  await createFileStorage({ dataDir, baseUrl: null, fileStorage: s3 }).then(
    () => console.log('s3: built'),
    (error) => console.log('s3: ' + error.message),
  );
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
`;

test('a server on local files never loads the AWS SDK; a bucket loads it when configured', async () => {
  const hook = new URL('../helpers/refuse-aws-sdk.js', import.meta.url).href;
  const { stdout } = await run(process.execPath, ['--import', hook, '--input-type=module', '-e', script], { timeout: 60_000 });
  // The S3 module imports client-s3 and lib-storage; the loader resolves them in parallel, so
  // either may be the one refused first.
  assert.match(stdout, /^local: built\ns3: refused: @aws-sdk\/(client-s3|lib-storage)\n$/);
});
