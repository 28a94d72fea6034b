import Fastify from 'fastify';
import { loadAppConfig } from '/work/main/dist/src/load-app-config.js';
import { buildApp } from '/work/main/dist/src/app.js';
const env = { CMS_DATA_DIR: '/tmp/bdb/data', CMS_CONFIG: '/tmp/bdb/cms.config.json', CMS_API_KEYS: 'bench-admin-key-0123456789:admin', CMS_LOG_LEVEL: 'warn', CMS_LIMIT_RESPONSE_CACHE_ENTRIES: '0' };
const body = Buffer.alloc(18000, 'x');
const cms = await buildApp(await loadAppConfig({ env, cwd: '/tmp/bdb' }));
cms.get('/api/v1/zzz', (req, reply) => reply.type('application/json').send(body));
const bare = Fastify(); bare.get('/api/v1/zzz', (req, reply) => reply.type('application/json').send(body));
const run = async (app, label) => { for (let i = 0; i < 3000; i++) await app.inject({ url: '/api/v1/zzz?a=1' });
  const c0 = process.cpuUsage(); const N = 20000; for (let i = 0; i < N; i++) await app.inject({ url: '/api/v1/zzz?a=1' });
  const c = process.cpuUsage(c0); console.log(label, ((c.user + c.system) / N).toFixed(1), 'us cpu/req'); };
for (let k = 0; k < 3; k++) { await run(bare, 'bare'); await run(cms, 'cms '); }
await cms.close();
