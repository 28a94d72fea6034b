/**
 * Writers side by side on PostgreSQL: `npm run bench:pg` (it builds first). See bench/NOTES.md.
 *
 * For 1 and then 2 server processes: a fresh schema of the database BENCH_POSTGRES_URL names
 * (else CMS_TEST_POSTGRES_URL, else the local test database), seeded with BENCH_DOCS articles;
 * the servers started as users start them, with CMS_DATABASE_URL naming that schema; then each
 * scenario with wrk (wrk.ts), one per server process, sharing BENCH_CONNECTIONS connections, all
 * at once. Nothing is pinned: the servers, PostgreSQL and wrk share the machine's CPUs. PATCH counts a field up (`$inc`) on different documents, then on one
 * document, whose count is checked afterwards against the answers: none may be lost. Inserts
 * take distinct titles, then one title (every insert races for the same slug). With
 * BENCH_PG_LATENCY_MS the servers reach the database through a proxy that holds each chunk that
 * long each way, as a database on another host (the seeding goes direct). Prints a Markdown table
 * and writes it as JSON to bench/results/.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { adminKey, benchConfig } from './corpus.js';
import { seed } from './seed.js';
import { startLatencyProxy } from './latency-proxy.js';
import { startCms, stop } from './servers.js';
import { ensureWrk, runWrk, type LoadResult, type LoadSpec } from './wrk.js';
import { positive } from './settings.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = join(here, '..', '..');
const settings = {
  url: process.env.BENCH_POSTGRES_URL ?? process.env.CMS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  docs: positive('BENCH_DOCS', process.env.BENCH_DOCS ?? '1000'),
  seconds: positive('BENCH_SECONDS', process.env.BENCH_SECONDS ?? '10'),
  connections: positive('BENCH_CONNECTIONS', process.env.BENCH_CONNECTIONS ?? '20'),
  processes: (process.env.BENCH_PROCESSES ?? '1,2').split(',').map((value) => positive('BENCH_PROCESSES', value)),
  /** Added each way to the servers' round trips to the database (0: none), through a proxy. */
  latencyMs: process.env.BENCH_PG_LATENCY_MS === undefined ? 0 : positive('BENCH_PG_LATENCY_MS', process.env.BENCH_PG_LATENCY_MS),
  /**
   * Streaming replicas of the database `url` names, comma-separated (CMS_DATABASE_READ_URL of the
   * servers, each given the schema's search_path): with them, a row of GET reads through them.
   */
  readUrls: (process.env.CMS_BENCH_READ_URL ?? '').split(',').map((url) => url.trim()).filter(Boolean),
};

/** The servers' way to the database: through the latency proxy when there is one (main). */
let serversPort: number | undefined;

interface Scenario {
  readonly key: string;
  readonly request: string;
  readonly method: 'PATCH' | 'POST' | 'GET';
  readonly paths: readonly string[];
  /** None for a GET. */
  readonly bodyTemplate?: string;
}

interface Row {
  readonly processes: number;
  readonly scenario: string;
  readonly request: string;
  readonly rps: number;
  readonly p50: number;
  /** The slowest process's p99. */
  readonly p99: number;
  readonly errors: number;
  /** What was checked after the run, and whether it held. */
  readonly check: string;
}

/** The bench's article type with a counter that has no maximum, for `$inc` to count up for ever. */
function writersConfig(): Record<string, unknown> {
  const config = benchConfig() as { modules: { article: { fields: { add: Record<string, unknown> } } } };
  config.modules.article.fields.add.views = { type: 'integer' };
  return config;
}

function scenarios(articleIds: readonly string[]): Scenario[] {
  const patch = JSON.stringify({ $inc: { views: 1 } });
  return [
    { key: 'patch-different', request: `PATCH $inc, ${articleIds.length} documents in turn`, method: 'PATCH', paths: articleIds.map((id) => `/api/v1/article/${id}`), bodyTemplate: patch },
    { key: 'patch-same', request: 'PATCH $inc, one document', method: 'PATCH', paths: [`/api/v1/article/${articleIds[0]}`], bodyTemplate: patch },
    { key: 'insert', request: 'POST, a distinct title each', method: 'POST', paths: ['/api/v1/article'], bodyTemplate: JSON.stringify({ title: 'Bench {n}' }) },
    { key: 'insert-same-title', request: 'POST, one title (one slug base)', method: 'POST', paths: ['/api/v1/article'], bodyTemplate: JSON.stringify({ title: 'Same title' }) },
    ...(settings.readUrls.length > 0 ? [readsScenario(articleIds)] : []),
  ];
}

/** With CMS_BENCH_READ_URL: get-ones and list pages in turn, read through the replicas. */
function readsScenario(articleIds: readonly string[]): Scenario {
  const pages = Array.from({ length: 50 }, (_, n) => `/api/v1/article?perPage=10&page=${n + 1}`);
  const ones = articleIds.slice(0, 200).map((id) => `/api/v1/article/${id}`);
  return { key: 'reads-replicas', request: `GET, ${ones.length} get-ones and ${pages.length} list pages in turn, through ${settings.readUrls.length} replica(s)`, method: 'GET', paths: [...ones, ...pages] };
}

/** The reads of GET requests each server's connections served (`/health`): the primary's, the replicas'. */
async function servedReads(bases: readonly string[]): Promise<{ primary: number; replicas: number }> {
  const totals = { primary: 0, replicas: 0 };
  for (const base of bases) {
    const { connections } = (await getJson(`${base}/health`)) as { connections?: { role: string; served: number }[] };
    for (const connection of connections ?? []) totals[connection.role === 'primary' ? 'primary' : 'replicas'] += connection.served;
  }
  return totals;
}

/** A replica's URL with the schema's search_path, as the servers are given it. */
function inSchema(url: string, schema: string): string {
  const withPath = new URL(url);
  withPath.searchParams.set('options', `-c search_path=${schema}`);
  return withPath.href;
}

async function admin<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: settings.url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The URL of the database with its connections' search_path set to `schema`, as an operator would name it. */
function schemaUrl(schema: string, port?: number): string {
  const url = new URL(settings.url);
  url.searchParams.set('options', `-c search_path=${schema}`);
  if (port !== undefined) {
    url.hostname = '127.0.0.1';
    url.port = String(port);
  }
  return url.href;
}

async function runProcesses(processes: number): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'cms-bench-pg-'));
  const schema = `cms_bench_${randomBytes(6).toString('hex')}`;
  const children: ChildProcess[] = [];
  try {
    await admin(`CREATE SCHEMA "${schema}"`);
    const env = {
      CMS_DATA_DIR: join(dir, 'data'),
      CMS_CONFIG: join(dir, 'cms.config.json'),
      CMS_API_KEYS: `${adminKey}:admin`,
      CMS_LOG_LEVEL: 'warn',
      CMS_DATABASE_URL: schemaUrl(schema),
    };
    await writeFile(env.CMS_CONFIG, JSON.stringify(writersConfig()));
    log(`${processes} process(es): seeding ${settings.docs} articles in schema ${schema}…`);
    const { articleIds } = await seed(env, settings.docs, () => undefined);
    const readUrls = settings.readUrls.map((url) => inSchema(url, schema));
    const serverEnv = { ...env, CMS_DATABASE_URL: schemaUrl(schema, serversPort), ...(readUrls.length > 0 ? { CMS_DATABASE_READ_URL: readUrls.join(',') } : {}) };
    const servers = [];
    for (let n = 0; n < processes; n++) servers.push(await startCms(serverEnv, children));
    const rows: Row[] = [];
    for (const scenario of scenarios(articleIds)) {
      const before = await countsBefore(servers[0]!.base, scenario);
      const servedBefore = scenario.method === 'GET' ? await servedReads(servers.map((server) => server.base)) : undefined;
      const results = await Promise.all(
        servers.map(async (server, n) => {
          // Each wrk its own folder for the paths and body files of its run.
          const own = join(dir, `load-${n}`);
          await mkdir(own, { recursive: true });
          return runWrk(specFor(server.base, scenario, processes), { dir: own, serverPids: () => [server.child.pid!], run: `${schema}-${scenario.key}-${n}` });
        }),
      );
      const row = {
        processes,
        scenario: scenario.key,
        request: scenario.request,
        rps: sum(results.map((result) => result.rps)),
        p50: Math.max(...results.map((result) => result.p50)),
        p99: Math.max(...results.map((result) => result.p99)),
        errors: sum(results.map((result) => result.statusErrors + result.socketErrors)),
        check: servedBefore
          ? readsCheck(servedBefore, await servedReads(servers.map((server) => server.base)), results)
          : await check({ base: servers[0]!.base, schema, scenario, before, results }),
      };
      log(tableRow(row));
      rows.push(row);
    }
    return rows;
  } finally {
    await Promise.all(children.map(stop));
    await admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await rm(dir, { recursive: true, force: true });
  }
}

function specFor(base: string, scenario: Scenario, processes: number): LoadSpec {
  return {
    base,
    method: scenario.method,
    paths: scenario.paths,
    headers: { authorization: `ApiKey ${adminKey}`, 'content-type': 'application/json' },
    bodyTemplate: scenario.bodyTemplate,
    connections: Math.max(1, Math.round(settings.connections / processes)),
    threads: 1,
    seconds: settings.seconds,
  };
}

const headers = { authorization: `ApiKey ${adminKey}` };

async function getJson(url: string): Promise<Record<string, any>> {
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return (await response.json()) as Record<string, any>;
}

/** What the check after a scenario compares with: the one document's count, or the number of articles. */
async function countsBefore(base: string, scenario: Scenario): Promise<number> {
  if (scenario.key === 'patch-same') return Number((await getJson(base + scenario.paths[0]!)).views ?? 0);
  if (scenario.key === 'insert-same-title') return (await getJson(`${base}/api/v1/article?count=1`)).count as number;
  return 0;
}

/**
 * After `patch-same`: the document counted up once per answered PATCH (a request that failed
 * may have been applied, never the reverse). After `insert-same-title`: every article has its
 * own slug.
 */
async function check(args: {
  base: string;
  schema: string;
  scenario: Scenario;
  before: number;
  results: readonly LoadResult[];
}): Promise<string> {
  const { base, schema, scenario, before, results } = args;
  const answered = sum(results.map((result) => result.total - result.statusErrors));
  if (scenario.key === 'patch-same') {
    const counted = Number((await getJson(base + scenario.paths[0]!)).views) - before;
    return counted >= answered ? `counted ${counted} of ${answered} answered: none lost` : `LOST ${answered - counted} of ${answered}`;
  }
  if (scenario.key === 'insert-same-title') {
    const [slugs] = await admin<{ versions: string; distinct: string }>(
      `SELECT count(*) AS versions, count(DISTINCT slug) AS distinct FROM "${schema}".documents WHERE type = 'article' AND mode = 'published'`,
    );
    const inserted = ((await getJson(`${base}/api/v1/article?count=1`)).count as number) - before;
    return `${inserted} inserted of ${answered} answered; ${slugs!.distinct} distinct slugs of ${slugs!.versions} published`;
  }
  return '';
}

/** The reads row's figures: the servers' CPU per answer, and the share of reads the replicas served. */
function readsCheck(before: { primary: number; replicas: number }, after: { primary: number; replicas: number }, results: readonly LoadResult[]): string {
  const replicas = after.replicas - before.replicas;
  const routed = replicas + after.primary - before.primary;
  const cpuMs = sum(results.map((result) => (result.serverCpu / 100) * settings.seconds * 1000));
  const answers = sum(results.map((result) => result.total));
  const share = routed === 0 ? 0 : (100 * replicas) / routed;
  return `server CPU ${(cpuMs / Math.max(answers, 1)).toFixed(2)} ms per request; replicas served ${share.toFixed(1)}% of ${routed} store reads`;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function log(line: string): void {
  process.stderr.write(line + '\n');
}

const header = '| processes | scenario | request | req/s | p50 ms | p99 ms | errors | check |\n|---|---|---|---|---|---|---|---|';

function tableRow(row: Row): string {
  const cells = [row.processes, row.scenario, row.request, Math.round(row.rps), row.p50.toFixed(1), row.p99.toFixed(1), row.errors, row.check];
  return `| ${cells.join(' | ')} |`;
}

async function main(): Promise<void> {
  ensureWrk();
  await mkdir(join(repo, 'bench/results'), { recursive: true });
  const before = { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version, date: new Date().toISOString(), loadAverage: loadavg() };
  const rows: Row[] = [];
  const database = new URL(settings.url);
  const proxy = settings.latencyMs > 0 ? await startLatencyProxy({ host: database.hostname, port: Number(database.port || 5432) }, settings.latencyMs) : undefined;
  serversPort = proxy?.port;
  try {
    for (const processes of settings.processes) rows.push(...(await runProcesses(processes)));
  } finally {
    await proxy?.close();
  }
  const after = { loadAverage: loadavg() };
  const server = (await admin<{ server_version: string }>('SHOW server_version'))[0]?.server_version ?? '?';
  const title =
    `PostgreSQL ${server}${settings.latencyMs > 0 ? ` ${settings.latencyMs} ms away each way` : ''}, ${settings.docs} articles, ` +
    `${settings.connections} connections in all, ${settings.seconds} s per scenario; ` +
    `${before.cpu} × ${before.cores}, Node ${before.node}, ${before.date.slice(0, 16)} UTC, ` +
    `load average ${before.loadAverage[0]!.toFixed(1)} before, ${after.loadAverage[0]!.toFixed(1)} after`;
  process.stdout.write(`\n${title}\n\n${header}\n${rows.map(tableRow).join('\n')}\n`);
  const file = join(repo, 'bench/results', `${before.date.slice(0, 10)}-pg-writers.json`);
  await writeFile(file, JSON.stringify({ machine: before, after, settings: { ...settings, url: undefined }, rows }, null, 2) + '\n');
  log(`written ${file}`);
}

await main();
