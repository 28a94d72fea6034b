import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../../scripts/build-if-changed.mjs', import.meta.url));

/**
 * A package whose `npm run build` writes the outputs `npm start` needs and counts its runs in
 * builds.log, or fails when src/broken exists: the script under test, copied in, decides.
 */
async function fakePackage(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cms-build-if-changed-'));
  await mkdir(join(dir, 'scripts'));
  await mkdir(join(dir, 'src'));
  await copyFile(script, join(dir, 'scripts', 'build-if-changed.mjs'));
  const build = [
    "const fs = require('node:fs');",
    "if (fs.existsSync('src/broken')) process.exit(3);",
    "fs.mkdirSync('dist/src', { recursive: true }); fs.mkdirSync('dist/admin', { recursive: true });",
    "fs.writeFileSync('dist/src/main.js', ''); fs.writeFileSync('dist/admin/index.html', '');",
    "fs.appendFileSync('builds.log', 'built\\n');",
  ].join(' ');
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'fake', private: true, scripts: { build: `node -e "${build}"` } }));
  await writeFile(join(dir, 'src', 'main.ts'), 'export {};\n');
  return dir;
}

/** Runs the script in dir: its exit code and how many builds have run so far. */
async function start(dir: string): Promise<{ code: number; builds: number }> {
  const code = await run(process.execPath, [join(dir, 'scripts', 'build-if-changed.mjs')], { cwd: dir, timeout: 60_000 }).then(
    () => 0,
    (error: { code?: number }) => error.code ?? -1,
  );
  const log = await readFile(join(dir, 'builds.log'), 'utf8').catch(() => '');
  return { code, builds: log.split('\n').filter(Boolean).length };
}

test('npm start builds once, again only when a source changed, a build failed or an output is missing', async () => {
  const dir = await fakePackage();
  try {
    assert.deepEqual(await start(dir), { code: 0, builds: 1 }, 'a fresh clone builds');
    assert.deepEqual(await start(dir), { code: 0, builds: 1 }, 'an unchanged tree does not build');
    await writeFile(join(dir, 'src', 'main.ts'), 'export const pulled = 1;\n');
    assert.deepEqual(await start(dir), { code: 0, builds: 2 }, 'a changed source builds');
    await writeFile(join(dir, 'src', 'broken'), '');
    assert.deepEqual(await start(dir), { code: 3, builds: 2 }, 'a failed build fails the start');
    await rm(join(dir, 'src', 'broken'));
    // The tree is back to what was last built, but the failed build may have left dist half written.
    assert.deepEqual(await start(dir), { code: 0, builds: 3 }, 'a start after a failed build builds');
    await rm(join(dir, 'dist', 'admin'), { recursive: true });
    assert.deepEqual(await start(dir), { code: 0, builds: 4 }, 'a missing output builds');
    assert.deepEqual(await start(dir), { code: 0, builds: 4 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
