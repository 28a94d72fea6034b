#!/usr/bin/env node
// Usage: node scripts/compress-admin.mjs [DIR]   (DIR defaults to dist/admin)
//
// Writes `<file>.br` and `<file>.gz` beside every .js, .css, .svg and .html file of the admin's
// build larger than 1 KB, so the server sends them as they are to clients that accept them
// (@fastify/static `preCompressed`) instead of compressing on every request. Run by
// `npm run build` after `vite build`; without a build (no DIR) it says so and does nothing.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const compressible = new Set(['.js', '.css', '.svg', '.html']);
// Below this, the bytes saved do not pay for the extra file and the lookup.
const minimumSize = 1024;

const dir = process.argv[2] ?? fileURLToPath(new URL('../dist/admin', import.meta.url));

/** Every file under `folder`, recursively. */
async function filesUnder(folder) {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

/** Brotli at its best quality and gzip at level 9: done once per build, so time is cheap. */
function compressedCopies(bytes) {
  const brotli = brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
  return { br: brotli, gz: gzipSync(bytes, { level: 9 }) };
}

async function main() {
  if (!(await stat(dir).catch(() => null))?.isDirectory()) {
    console.log(`compress-admin: no admin build at ${dir}, nothing to compress`);
    return;
  }
  let files = 0;
  let original = 0;
  let written = 0;
  for (const file of await filesUnder(dir)) {
    if (!compressible.has(extname(file))) continue;
    const bytes = await readFile(file);
    if (bytes.length <= minimumSize) continue;
    original += bytes.length;
    for (const [extension, copy] of Object.entries(compressedCopies(bytes))) {
      // A copy no smaller than the file would only cost the client.
      if (copy.length >= bytes.length) continue;
      await writeFile(`${file}.${extension}`, copy);
      if (extension === 'br') written += copy.length;
    }
    files += 1;
  }
  console.log(`compress-admin: ${files} files in ${dir}, ${original} bytes, ${written} as brotli`);
}

await main();
