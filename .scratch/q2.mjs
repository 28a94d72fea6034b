import Database from 'better-sqlite3-node20';
import { readFileSync } from 'node:fs';
const ids = JSON.parse(readFileSync('/tmp/bdb/ids.json','utf8'));
const db = new Database('/tmp/bdb/data/cms.sqlite', { readonly: true });
db.pragma('mmap_size = 268435456'); db.pragma('cache_size = -65536');
const bench = (label, sql, paramsOf) => {
  const st = db.prepare(sql).pluck();
  for (let i = 0; i < 500; i++) st.all(...paramsOf(i));
  const t = performance.now(); const N = 20000;
  for (let i = 0; i < N; i++) st.all(...paramsOf(i));
  console.log(label.padEnd(20), ((performance.now() - t) / N * 1000).toFixed(1), 'us');
};
const pid = (i) => ids[(i * 7919) % ids.length] + ':en:published';
bench('current', `SELECT documents.data FROM (SELECT documents.seq AS seq, documents.id AS k0 FROM documents WHERE +documents.type = ? AND documents.id IN (SELECT value FROM json_each(?)) AND +documents.archived = ? AND documents.visibility IN (SELECT value FROM json_each(?)) ORDER BY documents.id ASC LIMIT ? OFFSET ?) AS page JOIN documents ON documents.seq = page.seq ORDER BY page.k0 ASC`, (i) => ['article', JSON.stringify([pid(i)]), 0, '["public"]', 1, 0]);
bench('flat json_each', `SELECT data FROM documents WHERE type = ? AND id IN (SELECT value FROM json_each(?)) AND archived = ? AND visibility IN (SELECT value FROM json_each(?))`, (i) => ['article', JSON.stringify([pid(i)]), 0, '["public"]']);
bench('flat eq', `SELECT data FROM documents WHERE type = ? AND id = ? AND archived = ? AND visibility = ?`, (i) => ['article', pid(i), 0, 'public']);
bench('pk only', `SELECT data FROM documents WHERE id = ?`, (i) => [pid(i)]);
bench('flat eq + vis json', `SELECT data FROM documents WHERE id = ? AND +type = ? AND +archived = ? AND visibility IN (SELECT value FROM json_each(?))`, (i) => [pid(i), 'article', 0, '["public"]']);
