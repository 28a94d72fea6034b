import { loadAppConfig } from '/work/main/dist/src/load-app-config.js';
import { buildApp } from '/work/main/dist/src/app.js';
const env = { CMS_DATA_DIR: '/tmp/bdb/data', CMS_CONFIG: '/tmp/bdb/cms.config.json', CMS_API_KEYS: 'bench-admin-key-0123456789:admin', CMS_LOG_LEVEL: 'warn', CMS_LIMIT_RESPONSE_CACHE_ENTRIES: '0' };
const app = await buildApp(await loadAppConfig({ env, cwd: '/tmp/bdb' }));
const urls = ['/api/v1/article?sort[priority]=1', '/api/v1/article?sort[priority]=1&page=900', '/api/v1/article?search=garden', '/api/v1/article?search=garden&page=300', '/api/v1/article?category=news&sort[title]=1&page=150', '/api/v1/article?tags=local&page=200', '/api/v1/article?search=zephyr', '/api/v1/article?page=999'];
for (const url of urls) {
  let r; const t = performance.now(); for (let i = 0; i < 5; i++) r = await app.inject({ url });
  console.log(url.padEnd(60), r.statusCode, ((performance.now() - t) / 5).toFixed(1), 'ms', JSON.parse(r.body).count);
}
await app.close();
