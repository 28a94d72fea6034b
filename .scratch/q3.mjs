import Database from 'better-sqlite3-node20';
import { readFileSync } from 'node:fs';
const ids = JSON.parse(readFileSync('/tmp/bdb/ids.json','utf8'));
const open = (p) => { const c = new Database('/tmp/bdb/data/cms.sqlite'); for (const x of p) c.pragma(x); return c; };
const base = ['journal_mode = WAL', 'synchronous = NORMAL', 'foreign_keys = ON', 'busy_timeout = 5000', 'cache_size = -65536', 'mmap_size = 268435456', 'temp_store = MEMORY'];
const variants = { all: base, nommap: base.filter(x => !x.startsWith('mmap')), nocache: base.filter(x => !x.startsWith('cache')), plain: ['journal_mode = WAL'] };
const w = open(base);
const sql = `SELECT documents.data FROM documents WHERE +documents.type = ? AND documents.id IN (SELECT value FROM json_each(?)) AND +documents.archived = ? AND documents.visibility IN (SELECT value FROM json_each(?)) ORDER BY documents.id ASC LIMIT ? OFFSET ?`;
for (const [name, p] of Object.entries(variants)) {
  const c = open(p); c.pragma('query_only = ON');
  const st = c.prepare(sql).pluck();
  const same = JSON.stringify([ids[5000] + ':en:published']);
  for (let i = 0; i < 500; i++) st.all('article', same, 0, '["public"]', 1, 0);
  const t = performance.now(); const N = 10000;
  for (let i = 0; i < N; i++) st.all('article', same, 0, '["public"]', 1, 0);
  console.log(name, ((performance.now() - t) / N * 1000).toFixed(1), 'us');
}
