import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCms, stop } from './servers.js';

/**
 * One row, outside the wrk pairs (a release is one long write, not a rate): a release of
 * BENCH_RELEASE_DOCS (10,000) drafts made through the API, then its precheck and its publish
 * (one transaction) timed, on SQLite, or on PostgreSQL with BENCH_RELEASE_DATABASE_URL.
 * Optional: `npm run build:server && node dist/bench/release-publish.js`.
 */
const count = Number(process.env.BENCH_RELEASE_DOCS ?? 10_000);
const auth = { authorization: 'ApiKey dev-admin-key-change-me', 'content-type': 'application/json' };

async function call<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}/api/v1${path}`, { method, headers: auth, ...(body !== undefined && { body: JSON.stringify(body) }) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await work();
  return [value, performance.now() - start];
}

const dir = await mkdtemp(join(tmpdir(), 'cms-bench-release-'));
const children: ChildProcess[] = [];
try {
  const env: Record<string, string> = process.env.BENCH_RELEASE_DATABASE_URL ? { CMS_DATABASE_URL: process.env.BENCH_RELEASE_DATABASE_URL } : { CMS_DATA_DIR: dir };
  const { child, base } = await startCms({ ...env, CMS_LOG_LEVEL: 'warn' }, children);
  const ids: string[] = [];
  const [, seedMs] = await timed(async () => {
    for (let i = 0; i < count; i += 16) {
      const batch = await Promise.all(Array.from({ length: Math.min(16, count - i) }, (_, j) => call<{ _id: string }>(base, 'POST', '/article?cmsMode=draft', { title: `Release ${i + j}` })));
      ids.push(...batch.map((doc) => doc._id));
    }
  });
  const release = await call<{ _id: string }>(base, 'POST', '/@cms/release', { title: 'Bench' });
  for (let i = 0; i < ids.length; i += 1000) await call(base, 'POST', `/@cms/release/${release._id}/documents`, { add: ids.slice(i, i + 1000) });
  const [check, precheckMs] = await timed(() => call<{ ok: boolean }>(base, 'POST', `/@cms/release/${release._id}/precheck`));
  const [published, publishMs] = await timed(() => call<{ state: string }>(base, 'POST', `/@cms/release/${release._id}/publish`));
  const [, revertMs] = await timed(() => call(base, 'POST', `/@cms/release/${release._id}/revert`));
  console.log(`| release of ${count.toLocaleString('en-US')} drafts | seed ${(seedMs / 1000).toFixed(1)} s | precheck ${(precheckMs / 1000).toFixed(2)} s (ok: ${check.ok}) | publish ${(publishMs / 1000).toFixed(2)} s (${published.state}) | revert ${(revertMs / 1000).toFixed(2)} s |`);
  await stop(child);
} finally {
  for (const child of children) await stop(child);
  await rm(dir, { recursive: true, force: true });
}
