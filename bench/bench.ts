/**
 * Load benchmark: `npm run bench` (it builds first). See bench/NOTES.md.
 *
 * For each store size: seeds a fresh SQLite store through the insert operation (seed.ts), starts
 * the server as a user does (`node dist/src/main.js`) and a bare Fastify server (bare-server.ts),
 * then runs each scenario with autocannon in its own process (load.ts), against the CMS and then
 * against the bare server answering the bytes the CMS answered. Prints one Markdown table per
 * size and writes it as JSON to bench/results/.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { adminKey, benchConfig } from './corpus.js';
import { seed } from './seed.js';
import { getOnePath, scenarios, type Scenario } from './scenarios.js';
import { requestAt, type LoadResult, type LoadSpec } from './load.js';
import type { Captured } from './bare-server.js';
import { childrenOf, peakRssKiB } from './process-tree.js';
import { load, startCms as startServer, stop } from './servers.js';
import { readEnvironment } from '../src/config/env.js';
import { positive } from './settings.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = join(here, '..', '..');
const settings = {
  docs: (process.env.BENCH_DOCS ?? '10000').split(',').map((value) => positive('BENCH_DOCS', value)),
  seconds: positive('BENCH_SECONDS', process.env.BENCH_SECONDS ?? '10'),
  connections: positive('BENCH_CONNECTIONS', process.env.BENCH_CONNECTIONS ?? '50'),
  only: process.env.BENCH_SCENARIOS?.split(',').map((key) => key.trim()),
  /** Node flags for the CMS process only, such as `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
  cmsNodeArgs: process.env.BENCH_CMS_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
  /** Also measure the floor server (floor-server.ts) on the scenarios it answers. */
  floor: process.env.BENCH_FLOOR === '1',
  /** Server processes (CMS_WORKERS, passed through to the server like every CMS_* variable). */
  workers: readEnvironment(process.env, process.cwd()).workers,
};

/** The scenarios the floor server answers. */
const floorScenarios = new Set(['list', 'list-page-500', 'get-one', 'search-1pct']);

interface Row {
  readonly scenario: string;
  readonly request: string;
  readonly status: number;
  readonly cms: LoadResult;
  readonly bare: LoadResult;
  /** VmHWM of the CMS process after this scenario, in MiB. */
  readonly peakRssMiB: number;
  readonly ratio: number;
  /** The floor server's run, when measured (BENCH_FLOOR). */
  readonly floor?: LoadResult;
}

/** The server as a user starts it; resolves once /health answers. */
function startCms(env: Record<string, string>, children: ChildProcess[]): Promise<{ child: ChildProcess; base: string }> {
  return startServer(env, children, { nodeArgs: settings.cmsNodeArgs, workers: settings.workers });
}

/** A forked server of the bench's own (bare, floor): resolves with its address once it listens. */
async function startForked(script: string, args: string[], children: ChildProcess[]): Promise<{ child: ChildProcess; base: string }> {
  const child = fork(join(here, script), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  const [{ address }] = (await once(child, 'message')) as [{ address: string }];
  return { child, base: address };
}

async function startBare(children: ChildProcess[]): Promise<{ child: ChildProcess; base: string; serve(captured: Captured): Promise<void> }> {
  const { child, base } = await startForked('bare-server.js', [], children);
  return {
    child,
    base,
    async serve(captured) {
      child.send(captured);
      await once(child, 'message');
    },
  };
}

function specFor(base: string, scenario: Scenario): LoadSpec {
  const { method, paths, headers, bodyTemplate, bodyFile } = scenario;
  const connections = Math.min(scenario.connections ?? settings.connections, settings.connections);
  return { base, method, paths, headers, bodyTemplate, bodyFile, connections, seconds: settings.seconds };
}

/** One request as the load generator's first one, its answer kept for the bare server. */
async function capture(spec: LoadSpec): Promise<Captured> {
  const { path, body } = requestAt(spec, 0);
  const payload = spec.bodyFile ? await readFile(spec.bodyFile) : body;
  const response = await fetch(spec.base + path, { method: spec.method, headers: spec.headers, body: payload });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: Object.fromEntries(response.headers), body: bytes.toString('base64') };
}

/** The CMS's peak RSS, summed over the primary and its workers with CMS_WORKERS (each its own peak). */
function peakRssMiB(pid: number): number {
  const kib = [pid, ...childrenOf(pid)].reduce((sum, each) => sum + peakRssKiB(each), 0);
  return Math.round(kib / 1024);
}

/** A 12-megapixel JPEG (smooth noise, about a photo's size) as one multipart body. */
async function makeUpload(dir: string): Promise<{ file: string; contentType: string }> {
  const noise = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();
  const jpeg = await sharp(noise).resize(4000, 3000).jpeg({ quality: 90 }).toBuffer();
  const boundary = 'bench-boundary-7d1f';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
  const file = join(dir, 'upload.bin');
  await writeFile(file, Buffer.concat([Buffer.from(head), jpeg, Buffer.from(`\r\n--${boundary}--\r\n`)]));
  return { file, contentType: `multipart/form-data; boundary=${boundary}` };
}

async function runSize(docs: number): Promise<{ rows: Row[]; seedSeconds: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'cms-bench-'));
  const children: ChildProcess[] = [];
  try {
    const env = { CMS_DATA_DIR: join(dir, 'data'), CMS_CONFIG: join(dir, 'cms.config.json'), CMS_API_KEYS: `${adminKey}:admin`, CMS_LOG_LEVEL: 'warn' };
    await writeFile(env.CMS_CONFIG, JSON.stringify(benchConfig()));
    log(`seeding ${docs} articles…`);
    const seeded = await seed(env, docs, (done) => log(`  ${done} articles`));
    log(`seeded in ${seeded.seconds.toFixed(0)} s (${Math.round(docs / seeded.seconds)} articles/s)`);
    const upload = await makeUpload(dir);
    const cms = await startCms(env, children);
    const bare = await startBare(children);
    const floor = settings.floor ? await startForked('floor-server.js', [join(env.CMS_DATA_DIR, 'cms.sqlite')], children) : undefined;
    const etag = (await fetch(cms.base + getOnePath(seeded.articleIds))).headers.get('etag') ?? undefined;
    const selected = scenarios({ articleIds: seeded.articleIds, etag, upload }).filter((s) => !settings.only || settings.only.includes(s.key));
    const rows: Row[] = [];
    for (const scenario of selected) rows.push(await measure(scenario, { cms, bare, floor, dir }));
    return { rows, seedSeconds: seeded.seconds };
  } finally {
    await Promise.all(children.map(stop));
    await rm(dir, { recursive: true, force: true });
  }
}

async function measure(
  scenario: Scenario,
  servers: {
    cms: { child: ChildProcess; base: string };
    bare: Awaited<ReturnType<typeof startBare>>;
    floor: { base: string } | undefined;
    dir: string;
  },
): Promise<Row> {
  const { cms, bare, floor, dir } = servers;
  const captured = await capture(specFor(cms.base, scenario));
  const cmsResult = await load(specFor(cms.base, scenario), dir);
  const peak = peakRssMiB(cms.child.pid!);
  await bare.serve(captured);
  const bareResult = await load(specFor(bare.base, scenario), dir);
  const floorResult = floor && floorScenarios.has(scenario.key) ? await load(specFor(floor.base, scenario), dir) : undefined;
  const row = {
    scenario: scenario.key,
    request: describe(scenario),
    status: captured.status,
    cms: cmsResult,
    bare: bareResult,
    peakRssMiB: peak,
    ratio: cmsResult.rps / bareResult.rps,
    floor: floorResult,
  };
  log(tableRow(row));
  return row;
}

/** What the table shows of a request: its first path, ids elided, and what else sets it apart. */
function describe(scenario: Scenario): string {
  const notes = [
    scenario.headers.authorization ? 'admin' : 'anonymous',
    scenario.headers['if-none-match'] ? 'If-None-Match' : '',
    scenario.paths.length > 1 ? `${scenario.paths.length} documents in turn` : '',
    scenario.bodyTemplate ? 'a distinct body each' : '',
    scenario.connections ? `${Math.min(scenario.connections, settings.connections)} connections` : '',
  ];
  const path = scenario.paths[0].replace(/\/[0-9a-z]{20,}/g, '/<id>');
  return `\`${scenario.method} ${path}\` (${notes.filter(Boolean).join(', ')})`;
}

function log(line: string): void {
  process.stderr.write(line + '\n');
}

const header = '| scenario | request | status | req/s | p50 ms | p99 ms | errors | peak RSS MiB | bare req/s | ratio |\n|---|---|---|---|---|---|---|---|---|---|';

function tableRow(row: Row): string {
  const { cms, bare } = row;
  const cells = [row.scenario, row.request, row.status, rate(cms.rps), cms.p50, cms.p99, cms.errors, row.peakRssMiB, rate(bare.rps), percent(row.ratio)];
  return `| ${cells.join(' | ')} |`;
}

const floorHeader = '| scenario | floor req/s | floor p99 ms | floor / bare | CMS / floor |\n|---|---|---|---|---|';

function floorRow(row: Row): string {
  const floor = row.floor!;
  const cells = [row.scenario, rate(floor.rps), floor.p99, percent(floor.rps / row.bare.rps), percent(row.cms.rps / floor.rps)];
  return `| ${cells.join(' | ')} |`;
}

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}

function rate(rps: number): string {
  return rps < 100 ? rps.toFixed(1) : String(Math.round(rps));
}

function machine() {
  return { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version, date: new Date().toISOString(), loadAverage: loadavg() };
}

async function main(): Promise<void> {
  const known = scenarios({ articleIds: ['x'], etag: undefined, upload: { file: '', contentType: '' } }).map((s) => s.key);
  const unknown = settings.only?.filter((key) => !known.includes(key)) ?? [];
  if (unknown.length) throw new Error(`BENCH_SCENARIOS: unknown ${unknown.join(', ')}; scenarios are ${known.join(', ')}`);
  await mkdir(join(repo, 'bench/results'), { recursive: true });
  for (const docs of settings.docs) {
    const before = machine();
    const { rows, seedSeconds } = await runSize(docs);
    const after = { loadAverage: loadavg() };
    const title =
      `${docs} articles, ${settings.connections} connections, ${settings.seconds} s per scenario, ` +
      `${settings.workers === 1 ? 'one server process' : `CMS_WORKERS=${settings.workers} (peak RSS: primary and workers)`}; ` +
      `${before.cpu} × ${before.cores}, Node ${before.node}, ${before.date.slice(0, 16)} UTC, ` +
      `load average ${before.loadAverage[0].toFixed(1)} before, ${after.loadAverage[0].toFixed(1)} after`;
    process.stdout.write(`\n${title}\n\n${header}\n${rows.map(tableRow).join('\n')}\n`);
    const floors = rows.filter((row) => row.floor);
    if (floors.length > 0) process.stdout.write(`\nThe floor server (bench/floor-server.ts), same run:\n\n${floorHeader}\n${floors.map(floorRow).join('\n')}\n`);
    const file = join(repo, 'bench/results', `${before.date.slice(0, 10)}-${docs}.json`);
    await writeFile(file, JSON.stringify({ machine: before, after, settings: { ...settings, docs }, seedSeconds, rows }, null, 2) + '\n');
    log(`written ${file}`);
  }
}

await main();
