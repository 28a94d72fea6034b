/**
 * Load benchmark of the read paths: `npm run bench` (after `npm run build`, which it runs).
 *
 * Starts the real app on a fresh SQLite file, seeds it through the REST interface, then drives
 * each scenario with autocannon over a real TCP port. BENCH_DOCS (default 5000), BENCH_SECONDS
 * (default 10) and BENCH_CONNECTIONS (default 10) tune it. Numbers depend on the machine: compare
 * runs on the same one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import { loadAppConfig } from '../src/load-app-config.js';
import { buildApp } from '../src/app.js';

const adminKey = 'bench-admin-key-0123456789';
const docCount = positive('BENCH_DOCS', 5000);
const seconds = positive('BENCH_SECONDS', 10);
const connections = positive('BENCH_CONNECTIONS', 10);

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

const categories = ['news', 'sports', 'culture', 'science', 'travel'];
const words = 'garden river market winter castle harbor engine planet forest violin lantern meadow'.split(' ');

function benchConfig(): Record<string, unknown> {
  return {
    baseUrl: 'http://bench.test',
    locales: { en: { label: 'English' } },
    apiKeys: { [adminKey]: { role: 'admin' } },
    modules: {
      author: {
        extend: '@cms/piece-type',
        options: { label: 'Author', publicApiProjection: { title: 1, slug: 1 } },
        fields: { add: { bio: { type: 'string', textarea: true } } },
      },
      article: {
        extend: '@cms/piece-type',
        options: {
          label: 'Article',
          pagePath: '/articles',
          publicApiProjection: { title: 1, slug: 1, category: 1, priority: 1, body: 1, _authors: 1, _url: 1 },
        },
        fields: {
          add: {
            category: { type: 'select', choices: categories.map((value) => ({ label: value, value })) },
            priority: { type: 'integer', min: 0, max: 100 },
            _authors: { type: 'relationship', withType: 'author' },
            body: { type: 'area', options: { widgets: { '@cms/rich-text': {} } } },
          },
        },
      },
    },
  };
}

async function post(app: FastifyInstance, type: string, body: Record<string, unknown>): Promise<{ _id: string }> {
  const response = await app.inject({
    method: 'POST',
    url: `/api/v1/${type}`,
    headers: { authorization: `ApiKey ${adminKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  if (response.statusCode !== 200) throw new Error(`seeding ${type}: ${response.statusCode} ${response.body}`);
  return response.json();
}

async function seed(app: FastifyInstance): Promise<string> {
  const authors = [];
  for (let n = 0; n < 50; n++) authors.push(await post(app, 'author', { title: `Author ${n}`, bio: words[n % words.length] }));
  let sampleId = '';
  for (let n = 0; n < docCount; n++) {
    const text = [0, 3, 7].map((k) => words[(n + k) % words.length]).join(' ');
    const doc = await post(app, 'article', {
      title: `Article ${n} ${text}`,
      category: categories[n % categories.length],
      priority: n % 100,
      _authors: [authors[n % authors.length]._id, authors[(n + 1) % authors.length]._id],
      body: `<p>${text} ${n}</p>`,
    });
    if (n === Math.floor(docCount / 2)) sampleId = doc._id;
  }
  return sampleId;
}

interface Scenario {
  readonly name: string;
  readonly path: string;
  readonly admin?: boolean;
}

async function run(base: string, scenario: Scenario): Promise<string> {
  const result = await autocannon({
    url: base + scenario.path,
    connections,
    duration: seconds,
    headers: scenario.admin ? { authorization: `ApiKey ${adminKey}` } : {},
  });
  const failed = result.non2xx + result.errors;
  if (failed > 0) throw new Error(`${scenario.name}: ${failed} failed requests`);
  const { latency, requests } = result;
  return `| ${scenario.name} | \`${scenario.path}\` | ${Math.round(requests.average)} | ${latency.p50} | ${latency.p99} |`;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cms-bench-'));
  const config = await loadAppConfig({ config: benchConfig(), env: { CMS_DATA_DIR: dataDir, CMS_LOG_LEVEL: 'silent' }, cwd: dataDir });
  const app = await buildApp(config);
  try {
    process.stdout.write(`seeding ${docCount} articles (each a draft and a published version)…\n`);
    const sampleId = await seed(app);
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const scenarios: Scenario[] = [
      { name: 'list, anonymous (10 per page, 2 relationships each)', path: '/api/v1/article' },
      { name: 'list, admin, 100 per page', path: '/api/v1/article?perPage=100', admin: true },
      { name: 'list, filtered and sorted', path: '/api/v1/article?category=culture&priority[min]=10&priority[max]=60&sort[title]=1' },
      { name: 'list, full-text search', path: '/api/v1/article?search=harbor%20violin' },
      { name: 'list, deep page', path: `/api/v1/article?page=${Math.max(1, Math.floor(docCount / 20))}` },
      { name: 'get one', path: `/api/v1/article/${sampleId}` },
      { name: 'get one, areas rendered', path: `/api/v1/article/${sampleId}?renderAreas=true` },
    ];
    const rows = [];
    for (const scenario of scenarios) rows.push(await run(base, scenario));
    process.stdout.write(
      `\n${docCount} articles, ${connections} connections, ${seconds} s per scenario, Node ${process.version}\n\n` +
        '| scenario | request | req/s | p50 ms | p99 ms |\n|---|---|---|---|---|\n' +
        rows.join('\n') +
        '\n',
    );
  } finally {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
