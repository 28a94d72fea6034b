/**
 * Load benchmark: `npm run bench` (it builds first). See bench/README.md and bench/NOTES.md.
 *
 * For each store size: seeds a fresh SQLite store through the insert operation (seed.ts), starts
 * the server as a user does (`node dist/src/main.js`) and a bare Fastify server (bare-server.ts),
 * both pinned to the server's CPU, and reads their idle RSS. Then, for each scenario, wrk (pinned
 * to another CPU, wrk.ts) loads the CMS and the bare server answering the bytes the CMS
 * answered, in pairs alternating which goes first, and the row is the median pair (pairs.ts);
 * each run records wrk's and the server's CPU use, and a pair whose bare server did not keep its
 * core busy is invalid (validity.ts). Prints the tables and the issue's targets
 * (report.ts) and writes them as JSON to bench/results/.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminKey, benchConfig } from './corpus.js';
import { seed } from './seed.js';
import { draftPaths, floorScenarios, getOnePath, patchTemplate, scenarios, type Scenario, type ScenarioContext, type ServerSettings } from './scenarios.js';
import type { Captured } from './bare-server.js';
import { rssKiB, withChildren } from './process-tree.js';
import { pinned, startCms, stop } from './servers.js';
import { readEnvironment } from '../src/config/env.js';
import { positive } from './settings.js';
import { allowedCpus, parseCpuList } from './cpu.js';
import { ensureTaskset, ensureWrk, runWrk, type LoadResult, type LoadSpec } from './wrk.js';
import { judge, type WriterOutcome } from './validity.js';
import { markdown, targets, verdict, type Row, type SizeReport } from './report.js';
import { cmsFirst, pairedFigures, rowDone, type Pair } from './pairs.js';
import type { WriterSpec } from './writer.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = join(here, '..', '..');

/** The server's CPUs and wrk's: by default the first two this process may use. */
function chooseCpus(): { allowed: number[]; server: string; load: string; loadCount: number } {
  const allowed = allowedCpus();
  const server = process.env.BENCH_SERVER_CPUS ?? String(allowed[0]);
  const load = process.env.BENCH_LOAD_CPUS ?? String(allowed[1] ?? '');
  if (allowed.length < 2 && !(process.env.BENCH_SERVER_CPUS && process.env.BENCH_LOAD_CPUS)) {
    throw new Error(
      `The bench may use ${allowed.length} CPU (${allowed.join(',')}): it needs 2, the server on one and wrk on the other, ` +
        'so that the load generator takes none of the server time it measures. Run it on a machine with 2 CPUs or more.',
    );
  }
  const shared = parseCpuList(server).filter((cpu) => parseCpuList(load).includes(cpu));
  if (shared.length > 0) throw new Error(`BENCH_SERVER_CPUS (${server}) and BENCH_LOAD_CPUS (${load}) share CPU ${shared.join(',')}: they must not`);
  return { allowed, server, load, loadCount: parseCpuList(load).length };
}

const cpuChoice = chooseCpus();
const settings = {
  docs: (process.env.BENCH_DOCS ?? '10000').split(',').map((value) => positive('BENCH_DOCS', value)),
  seconds: positive('BENCH_SECONDS', process.env.BENCH_SECONDS ?? '4'),
  connections: positive('BENCH_CONNECTIONS', process.env.BENCH_CONNECTIONS ?? '50'),
  /** wrk threads: one per CPU it runs on. */
  threads: positive('BENCH_THREADS', process.env.BENCH_THREADS ?? String(cpuChoice.loadCount)),
  /** The paced editor's PATCHes a second during the "while writing" reads. */
  writerRate: positive('BENCH_WRITER_RATE', process.env.BENCH_WRITER_RATE ?? '10'),
  /** Pairs of runs (CMS and bare, alternating which goes first) whose median ratio a row reports (pairs.ts). */
  rounds: positive('BENCH_ROUNDS', process.env.BENCH_ROUNDS ?? '7'),
  /** A row measures at most rounds × attempts pairs to get `rounds` valid ones (contention comes and goes). */
  attempts: positive('BENCH_ATTEMPTS', process.env.BENCH_ATTEMPTS ?? '1'),
  /**
   * An unrecorded run of each scenario against each server before its measured one, as long: the
   * JIT compiles the path and a cache fills, so p99 says what a warm server does (0: none).
   */
  warmupSeconds: wholeSeconds('BENCH_WARMUP_SECONDS', process.env.BENCH_WARMUP_SECONDS ?? '1'),
  /** How long the servers rest after start before their RSS is read. */
  idleSeconds: positive('BENCH_IDLE_SECONDS', process.env.BENCH_IDLE_SECONDS ?? '5'),
  only: process.env.BENCH_SCENARIOS?.split(',').map((key) => key.trim()),
  /** Node flags for the CMS process only, such as `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
  cmsNodeArgs: process.env.BENCH_CMS_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
  /** Also measure the floor server (floor-server.ts) on the cache-off reads. */
  floor: process.env.BENCH_FLOOR === '1',
  /** Server processes (CMS_WORKERS, passed through to the server like every CMS_* variable); all on the server's CPUs. */
  workers: readEnvironment(process.env, process.cwd()).workers,
  serverCpus: cpuChoice.server,
  loadCpus: cpuChoice.load,
};

interface Server {
  readonly child: ChildProcess;
  readonly base: string;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function log(line: string): void {
  process.stderr.write(line + '\n');
}

/** The VmRSS of a server (with CMS_WORKERS, primary and workers) after it has rested, in MiB. */
async function idleRssMiB(server: Server): Promise<number> {
  await sleep(settings.idleSeconds * 1000);
  return Math.round(withChildren(server.child.pid!).reduce((sum, pid) => sum + rssKiB(pid), 0) / 1024);
}

/** A server of the bench's own (bare, floor), pinned to the server's CPUs: resolves once it listens. */
async function startOwn(script: string, args: string[], children: ChildProcess[]): Promise<Server> {
  const [command, commandArgs] = pinned(settings.serverCpus, process.execPath, [join(here, script), ...args]);
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  const [{ address }] = (await once(child, 'message')) as [{ address: string }];
  return { child, base: address };
}

async function serve(bare: Server, captured: Captured): Promise<void> {
  bare.child.send(captured);
  await once(bare.child, 'message');
}

function startServer(env: Record<string, string>, server: ServerSettings, children: ChildProcess[]): Promise<Server> {
  const extra: Record<string, string> = server === 'cache-off' ? { CMS_LIMIT_RESPONSE_CACHE_ENTRIES: '0' } : {};
  log(`starting the CMS${server === 'cache-off' ? ' with the response cache off' : ''}…`);
  return startCms({ ...env, ...extra }, children, { nodeArgs: settings.cmsNodeArgs, workers: settings.workers, cpus: settings.serverCpus });
}

function specFor(base: string, scenario: Scenario, seconds = settings.seconds): LoadSpec {
  const { method, paths, headers, bodyTemplate } = scenario;
  return { base, method, paths, headers, bodyTemplate, connections: settings.connections, threads: settings.threads, seconds };
}

/** A whole number of seconds from a `BENCH_*` variable, 0 included. */
function wholeSeconds(name: string, raw: string): number {
  return raw === '0' ? 0 : positive(name, raw);
}

/** The scenario's first request, sent once; its answer is what the bare server answers. */
async function capture(base: string, scenario: Scenario, run: string): Promise<Captured> {
  const body = scenario.bodyTemplate?.replaceAll('{n}', `${run}-capture`);
  const response = await fetch(base + scenario.paths[0], { method: scenario.method, headers: scenario.headers, body });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: Object.fromEntries(response.headers), body: bytes.toString('base64') };
}

/** The paced editor (writer.ts), on wrk's CPUs: it is light, and the server's CPU stays the server's. */
async function startWriter(base: string, ctx: ScenarioContext, dir: string, run: string): Promise<{ pid: number; stop(): Promise<WriterOutcome> }> {
  const spec: WriterSpec = {
    base,
    paths: draftPaths([...ctx.articleIds].reverse()),
    headers: { authorization: `ApiKey ${adminKey}`, 'content-type': 'application/json' },
    bodyTemplate: patchTemplate,
    perSecond: settings.writerRate,
    run,
  };
  const file = join(dir, 'writer.json');
  await writeFile(file, JSON.stringify(spec));
  const [command, args] = pinned(settings.loadCpus, process.execPath, [join(here, 'writer.js'), file]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk));
  while (!out.includes('ready\n')) {
    if (child.exitCode !== null) throw new Error(`the writer exited with ${child.exitCode}`);
    await sleep(20);
  }
  const started = performance.now();
  const stopWriter = async () => {
    const seconds = (performance.now() - started) / 1000;
    child.kill('SIGTERM');
    await once(child, 'exit');
    const { ok, failed } = JSON.parse(out.slice(out.indexOf('ready\n') + 6)) as { ok: number; failed: number };
    return { planned: Math.floor(seconds * settings.writerRate), ok, failed };
  };
  return { pid: child.pid!, stop: stopWriter };
}

/** One wrk run against `server`, with the writer beside it when the scenario has one. */
async function loadRun(server: Server, scenario: Scenario, ctx: ScenarioContext, dir: string, run: string): Promise<{ result: LoadResult; writer?: WriterOutcome }> {
  const options = { dir, cpus: settings.loadCpus, serverPids: () => withChildren(server.child.pid!), serverCpus: settings.serverCpus, run: `${run}-warmup` };
  if (settings.warmupSeconds > 0) await runWrk(specFor(server.base, scenario, settings.warmupSeconds), { ...options, ownPidsOnLoadCpus: () => [] });
  const writer = scenario.withWriter ? await startWriter(server.base, ctx, dir, run) : undefined;
  const result = await runWrk(specFor(server.base, scenario), {
    dir,
    cpus: settings.loadCpus,
    serverPids: () => withChildren(server.child.pid!),
    serverCpus: settings.serverCpus,
    ownPidsOnLoadCpus: () => (writer ? [writer.pid] : []),
    run,
  });
  return { result, writer: await writer?.stop() };
}

type Servers = { cms: Server; bare: Server; floor?: Server };

/** One round of a row: the CMS and the bare server, in the round's order (pairs.ts), and the floor. */
async function measurePair(scenario: Scenario, servers: Servers, ctx: ScenarioContext, dir: string, run: string, round: number): Promise<Pair> {
  const runCms = () => loadRun(servers.cms, scenario, ctx, dir, `${run}-${round}-cms`);
  const runBare = () => loadRun(servers.bare, scenario, ctx, dir, `${run}-${round}-bare`);
  let cms, bare;
  if (cmsFirst(round)) {
    cms = await runCms();
    bare = await runBare();
  } else {
    bare = await runBare();
    cms = await runCms();
  }
  const floor = servers.floor && floorScenarios.has(scenario.key) ? (await loadRun(servers.floor, scenario, ctx, dir, `${run}-${round}-floor`)).result : undefined;
  const writer = cms.writer && bare.writer ? { cms: cms.writer, bare: bare.writer } : undefined;
  const pair = { cms: cms.result, bare: bare.result, ratio: cms.result.rps / bare.result.rps, writer, floor, validity: judge({ cms: cms.result, bare: bare.result, writer: writer?.cms }) };
  log(
    `${scenario.key} (pair ${round + 1}, ${cmsFirst(round) ? 'CMS first' : 'bare first'}): ${Math.round(pair.cms.rps)} req/s, bare ${Math.round(pair.bare.rps)} (${(pair.ratio * 100).toFixed(1)}%); ` +
      `CPU wrk ${pair.cms.loadCpu.toFixed(0)}%, server ${pair.cms.serverCpu.toFixed(0)}%, bare server ${pair.bare.serverCpu.toFixed(0)}%${pair.validity.valid ? '' : `; INVALID: ${pair.validity.reasons.join('; ')}`}`,
  );
  return pair;
}

/** A scenario's row: pairs until enough are valid (pairs.ts), the bare server answering the CMS's bytes. */
async function measure(scenario: Scenario, servers: Servers, ctx: ScenarioContext, dir: string): Promise<Row> {
  const run = `${ctx.articleIds.length}-${scenario.key}-${Date.now().toString(36)}`;
  const captured = await capture(servers.cms.base, scenario, run);
  await serve(servers.bare, captured);
  const pairs: Pair[] = [];
  while (!rowDone(pairs, settings.rounds, settings.attempts)) pairs.push(await measurePair(scenario, servers, ctx, dir, run, pairs.length));
  const path = scenario.paths[0]!.replace(/\/[0-9a-z]{20,}/g, '/<id>');
  const row: Row = { scenario: scenario.key, request: `\`${scenario.method} ${path}\` (${scenario.note})`, status: captured.status, ...pairedFigures(pairs, settings.rounds) };
  log(`${row.scenario}: ${(row.ratio * 100).toFixed(1)}% of bare, the median of ${row.pairs.filter((pair) => pair.valid).length} valid pairs${row.validity.valid ? '' : `; INVALID: ${row.validity.reasons.join('; ')}`}`);
  return row;
}

async function runSize(docs: number): Promise<SizeReport & { seedSeconds: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'cms-bench-'));
  const children: ChildProcess[] = [];
  try {
    const env = { CMS_DATA_DIR: join(dir, 'data'), CMS_CONFIG: join(dir, 'cms.config.json'), CMS_API_KEYS: `${adminKey}:admin`, CMS_LOG_LEVEL: 'warn' };
    await writeFile(env.CMS_CONFIG, JSON.stringify(benchConfig()));
    log(`seeding ${docs} articles…`);
    const seeded = await seed(env, docs, (done) => log(`  ${done} articles`));
    log(`seeded in ${seeded.seconds.toFixed(0)} s (${Math.round(docs / seeded.seconds)} articles/s)`);
    const bare = await startOwn('bare-server.js', [], children);
    let cms = { settings: 'default' as ServerSettings, server: await startServer(env, 'default', children) };
    log(`resting ${settings.idleSeconds} s before reading the idle RSS…`);
    const [cmsIdle, bareIdle] = await Promise.all([idleRssMiB(cms.server), idleRssMiB(bare)]);
    const floor = settings.floor ? await startOwn('floor-server.js', [join(env.CMS_DATA_DIR, 'cms.sqlite')], children) : undefined;
    const etag = (await fetch(cms.server.base + getOnePath(seeded.articleIds))).headers.get('etag') ?? undefined;
    const ctx: ScenarioContext = { articleIds: seeded.articleIds, authorIds: seeded.authorIds, etag };
    const rows: Row[] = [];
    for (const scenario of scenarios(ctx).filter((each) => !settings.only || settings.only.includes(each.key))) {
      if (scenario.server !== cms.settings) {
        await stop(cms.server.child);
        cms = { settings: scenario.server, server: await startServer(env, scenario.server, children) };
      }
      const row = await measure(scenario, { cms: cms.server, bare, floor }, ctx, dir);
      rows.push(row);
    }
    return { docs, idleRssMiB: { cms: cmsIdle, bare: bareIdle }, rows, seedSeconds: seeded.seconds };
  } finally {
    await Promise.all(children.map(stop));
    await rm(dir, { recursive: true, force: true });
  }
}

function machine(wrk: string) {
  return { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version, wrk, date: new Date().toISOString(), loadAverage: loadavg() };
}

async function main(): Promise<void> {
  const known = scenarios({ articleIds: ['x'], authorIds: ['y'], etag: undefined }).map((s) => s.key);
  const unknown = settings.only?.filter((key) => !known.includes(key)) ?? [];
  if (unknown.length) throw new Error(`BENCH_SCENARIOS: unknown ${unknown.join(', ')}; scenarios are ${known.join(', ')}`);
  ensureTaskset();
  const wrk = ensureWrk();
  // The bench itself (seeding, sampling, the fetches) keeps off the server's CPU; the processes it
  // starts are pinned each on its own.
  spawnSync('taskset', ['-a', '-p', '-c', settings.loadCpus, String(process.pid)], { stdio: 'ignore' });
  log(`CPUs the bench may use: ${cpuChoice.allowed.join(',')}; the servers on ${settings.serverCpus}, wrk ${wrk} and the writer on ${settings.loadCpus} (taskset)`);
  await mkdir(join(repo, 'bench/results'), { recursive: true });
  for (const docs of settings.docs) {
    const before = machine(wrk);
    const size = await runSize(docs);
    const after = { loadAverage: loadavg() };
    const title =
      `**${docs} articles**, ${settings.connections} connections, ${settings.threads} wrk thread(s), ${settings.seconds} s per run, ${settings.rounds} pairs of runs per row (the median shown); ` +
      `servers pinned to CPU ${settings.serverCpus}, wrk ${wrk} to CPU ${settings.loadCpus} (taskset)` +
      `${settings.workers === 1 ? '' : `; CMS_WORKERS=${settings.workers}, all on the server's CPUs`}; ` +
      `${before.cpu} × ${before.cores}, Node ${before.node}, ${before.date.slice(0, 16)} UTC, ` +
      `load average ${before.loadAverage[0]!.toFixed(1)} before, ${after.loadAverage[0]!.toFixed(1)} after`;
    process.stdout.write(`\n${markdown(title, size, settings.writerRate)}`);
    const verdicts = targets(settings.writerRate).map((target) => ({ target: target.label, ...verdict(target, size.rows) }));
    const file = join(repo, 'bench/results', `${before.date.slice(0, 19).replaceAll(':', '')}-${docs}.json`);
    await writeFile(file, JSON.stringify({ machine: before, after, settings: { ...settings, docs }, ...size, targets: verdicts }, null, 2) + '\n');
    log(`written ${file}`);
  }
}

await main();
