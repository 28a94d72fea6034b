/**
 * The response cache measured against a bare Fastify server answering the same bytes:
 * `node dist/bench/response-cache-bench.js` after `npm run build` (tsc is enough).
 *
 * Each server runs in a process of its own, and autocannon in this one: the app with the cache
 * on (it seeds BENCH_DOCS articles), the app with the cache off on the same store, and a bare
 * Fastify server holding the app's answers as bytes. Scenarios run one server at a time, in
 * turns (cache on, off, bare, then again), so that a machine busy with other work weighs on all.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { loadAppConfig } from '../src/load-app-config.js';
import { buildApp } from '../src/app.js';

const adminKey = 'bench-admin-key-0123456789';
const docCount = Number(process.env.BENCH_DOCS ?? 2000);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const self = fileURLToPath(import.meta.url);

function benchConfig(): Record<string, unknown> {
  return {
    baseUrl: 'http://bench.test',
    locales: { en: { label: 'English' } },
    apiKeys: { [adminKey]: { role: 'admin' } },
    modules: {
      author: { extend: '@cms/piece-type', options: { publicApiProjection: { title: 1, slug: 1 } }, fields: { add: { bio: { type: 'string' } } } },
      article: {
        extend: '@cms/piece-type',
        options: { pagePath: '/articles', publicApiProjection: { title: 1, slug: 1, category: 1, priority: 1, body: 1, _authors: 1, _url: 1 } },
        fields: {
          add: {
            category: { type: 'string' },
            priority: { type: 'integer', min: 0, max: 100 },
            _authors: { type: 'relationship', withType: 'author' },
            body: { type: 'area', options: { widgets: { '@cms/rich-text': {} } } },
          },
        },
      },
    },
  };
}

/** `server <dataDir> <seed>`: the app on the store in dataDir; prints `ready <port> <sampleId>`. */
async function serveApp(dataDir: string, seedCount: number): Promise<void> {
  // autocannon keeps its connections: the default 1,000 requests per connection would end them in 503s.
  const env = { CMS_LIMIT_REQUESTS_PER_CONNECTION: '1000000', ...process.env, CMS_DATA_DIR: dataDir, CMS_LOG_LEVEL: 'silent' };
  const config = await loadAppConfig({ config: benchConfig(), env, cwd: dataDir });
  const app = await buildApp(config);
  const post = async (type: string, body: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url: `/api/v1/${type}`, headers: { authorization: `ApiKey ${adminKey}` }, payload: body });
    if (res.statusCode !== 200) throw new Error(res.body);
    return res.json() as { _id: string };
  };
  let sampleId = '';
  if (seedCount > 0) {
    const authors = [];
    for (let n = 0; n < 20; n++) authors.push(await post('author', { title: `Author ${n}` }));
    for (let n = 0; n < seedCount; n++) {
      const doc = await post('article', {
        title: `Article ${n}`, category: `c${n % 5}`, priority: n % 100,
        _authors: [authors[n % 20]!._id, authors[(n + 1) % 20]!._id], body: `<p>Text of article ${n}</p>`,
      });
      if (n === Math.floor(seedCount / 2)) sampleId = doc._id;
    }
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`ready ${(app.server.address() as { port: number }).port} ${sampleId}\n`);
}

/** `bare <file>`: answers every GET with the JSON bytes in the file and its ETag (304 when it matches). */
async function serveBare(file: string): Promise<void> {
  const { readFile } = await import('node:fs/promises');
  const answers = JSON.parse(await readFile(file, 'utf8')) as Record<string, { body: string; etag: string }>;
  const app = Fastify();
  app.get('/*', (request, reply) => {
    const answer = answers[request.url]!;
    void reply.header('etag', answer.etag).header('cache-control', 'no-cache').header('vary', 'Authorization, Cookie');
    if (request.headers['if-none-match'] === answer.etag) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(Buffer.from(answer.body));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`ready ${(app.server.address() as { port: number }).port}\n`);
}

function start(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; words: string[] }> {
  const child = spawn(process.execPath, [self, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('ready ')) resolve({ child, words: line.split(' ').slice(1) });
    });
  });
}

async function measure(port: string, path: string, headers: Record<string, string> = {}) {
  const statuses = new Map<number, number>();
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${path}`, connections, duration: seconds, headers,
    setupClient: (client) => client.on('response', (status: number) => void statuses.set(status, (statuses.get(status) ?? 0) + 1)),
  } as autocannon.Options);
  if (process.env.BENCH_DEBUG) process.stdout.write(`${port} ${path} ${JSON.stringify([...statuses])}\n`);
  if (result.errors > 0 || result.non2xx > 0 && !headers['if-none-match']) throw new Error(`${path}: ${result.errors} errors, ${result.non2xx} non-2xx`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

async function drive(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cms-cache-bench-'));
  const children: ChildProcess[] = [];
  try {
    process.stdout.write(`seeding ${docCount} articles…\n`);
    const on = await start(['server', dataDir, String(docCount)]);
    children.push(on.child);
    const off = await start(['server', dataDir, '0'], { CMS_LIMIT_RESPONSE_CACHE_ENTRIES: '0' });
    children.push(off.child);
    const [onPort, sampleId] = on.words as [string, string];
    const offPort = off.words[0]!;
    const paths = { list: '/api/v1/article', one: `/api/v1/article/${sampleId}` };
    const answers: Record<string, { body: string; etag: string }> = {};
    for (const path of Object.values(paths)) {
      const res = await fetch(`http://127.0.0.1:${onPort}${path}`);
      answers[path] = { body: await res.text(), etag: res.headers.get('etag')! };
    }
    const file = join(dataDir, 'answers.json');
    await writeFile(file, JSON.stringify(answers));
    const bare = await start(['bare', file]);
    children.push(bare.child);
    const bytes = Object.fromEntries(Object.entries(paths).map(([name, path]) => [name, answers[path]!.body.length]));
    const scenarios: { name: string; path: string; headers: Record<string, string> }[] = [
      { name: `list page 1 (${bytes.list} B)`, path: paths.list, headers: {} },
      { name: `get one (${bytes.one} B)`, path: paths.one, headers: {} },
      { name: 'list page 1, 304', path: paths.list, headers: { 'if-none-match': answers[paths.list]!.etag } },
      { name: 'get one, 304', path: paths.one, headers: { 'if-none-match': answers[paths.one]!.etag } },
    ];
    const servers = { 'cache on': onPort, 'cache off': offPort, bare: bare.words[0]! };
    const results = new Map<string, { rps: number[]; p99: number[] }>();
    for (let round = 0; round < rounds; round++) {
      for (const scenario of scenarios) {
        for (const [server, port] of Object.entries(servers)) {
          const r = await measure(port, scenario.path, scenario.headers);
          const key = `${scenario.name}\t${server}`;
          const entry = results.get(key) ?? { rps: [], p99: [] };
          entry.rps.push(r.rps);
          entry.p99.push(r.p99);
          results.set(key, entry);
        }
      }
    }
    const lines = ['| scenario | cache on req/s (p99 ms) | cache off req/s (p99 ms) | bare req/s | on/bare | off/bare |', '|---|---|---|---|---|---|'];
    for (const scenario of scenarios) {
      const get = (server: string) => results.get(`${scenario.name}\t${server}`)!;
      const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
      const [onR, offR, bareR] = ['cache on', 'cache off', 'bare'].map((s) => mean(get(s).rps)) as [number, number, number];
      const fmt = (s: string) => `${Math.round(mean(get(s).rps))} (${Math.max(...get(s).p99)})`;
      lines.push(`| ${scenario.name} | ${fmt('cache on')} | ${fmt('cache off')} | ${Math.round(bareR)} | ${Math.round((100 * onR) / bareR)}% | ${Math.round((100 * offR) / bareR)}% |`);
    }
    process.stdout.write(`\n${docCount} articles, ${connections} connections, ${seconds} s x ${rounds} rounds each, Node ${process.version}\n\n${lines.join('\n')}\n`);
  } finally {
    for (const child of children) child.kill();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'server') await serveApp(rest[0]!, Number(rest[1]));
else if (mode === 'bare') await serveBare(rest[0]!);
else await drive();
