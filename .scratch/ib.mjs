import { loadAppConfig } from '/work/main/dist/src/load-app-config.js';
import { buildApp } from '/work/main/dist/src/app.js';
import { readFileSync } from 'node:fs';
const ids = JSON.parse(readFileSync('/tmp/bdb/ids.json', 'utf8'));
const env = { CMS_DATA_DIR: '/tmp/bdb/data', CMS_CONFIG: '/tmp/bdb/cms.config.json', CMS_API_KEYS: 'bench-admin-key-0123456789:admin', CMS_LOG_LEVEL: 'warn', CMS_LIMIT_RESPONSE_CACHE_ENTRIES: '0' };
const config = await loadAppConfig({ env, cwd: '/tmp/bdb' });
const app = await buildApp(config);
const one = `/api/v1/article/${ids[5000]}:en:published`;
const cases = { 'get-one': one, rendered: one + '?renderAreas=true', list: '/api/v1/article', page500: '/api/v1/article?page=500', search: '/api/v1/article?search=zephyr', filtered: '/api/v1/article?category=culture&priority[min]=10&priority[max]=60&sort[title]=1' };
const only = process.argv[2]?.split(',');
for (const [name, url] of Object.entries(cases)) {
  if (only && !only.includes(name)) continue;
  const r = await app.inject({ url }); if (r.statusCode !== 200) throw new Error(name + r.statusCode);
  const N = Number(process.env.N ?? (name === 'get-one' || name === 'rendered' ? 6000 : 1500));
  for (let i = 0; i < N / 5; i++) await app.inject({ url });
  const t = performance.now(); const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) await app.inject({ url });
  const c = process.cpuUsage(c0); console.log(name.padEnd(10), ((performance.now() - t) / N * 1000).toFixed(0), 'us/req wall', ((c.user + c.system) / N).toFixed(0), 'us/req cpu', r.body.length, 'bytes');
}
globalThis.__sqldump?.(); await app.close();
