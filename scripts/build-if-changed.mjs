#!/usr/bin/env node
// Usage: node scripts/build-if-changed.mjs
//
// Runs `npm run build` only when what it builds from changed since the last successful build
// (`npm start` calls it before serving): a start on an unchanged tree takes seconds, not a build.
// What the build reads is hashed by content (a `git pull` or checkout that changes a file is seen,
// whatever its modification time); the hash of the last successful build is kept in dist/.
// The stamp is removed before building and written only after a build succeeded, so a failed or
// interrupted build is built again at the next start. Missing outputs are rebuilt as well.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');

/** Directories the build compiles (tsconfig*.json, admin/vite.config.ts) and files it reads. */
const sourceDirs = ['src', 'test', 'bench', 'admin'];
const sourceFiles = ['package.json', 'package-lock.json', 'scripts/compress-admin.mjs'];
/** Outputs `npm start` needs: a build that left one out is not a build. */
const outputs = ['dist/src/main.js', 'dist/admin/index.html'];

/** Every file under dir, recursively, relative to the root. */
function filesUnder(dir) {
  const absolute = join(root, dir);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath ?? entry.path, entry.name)));
}

/** One hash of the names and contents of everything the build reads, in a fixed order. */
function sourceHash() {
  const topLevel = readdirSync(root).filter((name) => /^tsconfig.*\.json$/.test(name));
  const files = [...sourceDirs.flatMap(filesUnder), ...sourceFiles, ...topLevel]
    .filter((file) => existsSync(join(root, file)))
    .map((file) => file.split('\\').join('/'))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file}\0`).update(readFileSync(join(root, file))).update('\0');
  return hash.digest('hex');
}

const current = sourceHash();
const built = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : null;
if (built === current && outputs.every((file) => existsSync(join(root, file)))) {
  console.log('Build is up to date with the sources: not rebuilding (dist/.build-stamp)');
  process.exit(0);
}

console.log(built === null ? 'No finished build: npm run build' : 'Sources changed since the last build: npm run build');
rmSync(stamp, { force: true });
const npm = process.env.npm_execpath;
const result = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' })
  : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
if (result.status !== 0) process.exit(result.status ?? 1);
writeFileSync(stamp, `${current}\n`);
