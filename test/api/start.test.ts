import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../../src/main.js', import.meta.url));

/** Starts the real process in an empty directory, returns its log once it listens, then stops it. */
async function startLog(env: Record<string, string>): Promise<string> {
  const cwd = await mkdtemp(join(tmpdir(), 'cms-start-'));
  const child = spawn(process.execPath, [main], { cwd, env: { PATH: process.env.PATH ?? '', PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start within 20 s: ${output}`)), 20_000);
      let listening = false;
      const read = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (listening || !/Server listening/.test(output)) return;
        listening = true;
        // The warning, if any, is written right after the listening line.
        setTimeout(() => {
          clearTimeout(timer);
          resolve();
        }, 500);
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
    });
  } finally {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('close', resolve));
    await rm(cwd, { recursive: true, force: true });
  }
  return output;
}

test('the bundled demo listens on 127.0.0.1 and warns that its API keys are public', async () => {
  const log = await startLog({});
  assert.match(log, /Server listening at http:\/\/127\.0\.0\.1:\d+/);
  assert.doesNotMatch(log, /0\.0\.0\.0/);
  const warning = log.split('\n').find((line) => line.includes('PUBLIC API keys'));
  assert.ok(warning, log);
  assert.equal(JSON.parse(warning).level, 40);
});

test('a first start on an empty store logs the one-time setup code at warn', async () => {
  const log = await startLog({ CMS_API_KEYS: 'my-own-secret-key-0123:admin', HOST: '127.0.0.1' });
  const line = log.split('\n').find((entry) => entry.includes('setup code'));
  assert.ok(line, log);
  assert.equal(JSON.parse(line).level, 40);
  assert.match(JSON.parse(line).msg, /setup code [A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
});

test('with its own keys (CMS_API_KEYS) the demo does not warn', async () => {
  // HOST keeps the test on loopback; that the default is then 0.0.0.0 is in test/unit/config.test.ts.
  const log = await startLog({ CMS_API_KEYS: 'my-own-secret-key-0123:admin', HOST: '127.0.0.1' });
  assert.match(log, /Server listening at http:\/\/127\.0\.0\.1:\d+/);
  assert.doesNotMatch(log, /PUBLIC API keys/);
});
