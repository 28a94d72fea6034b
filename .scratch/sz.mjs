import Database from 'better-sqlite3-node20';
import { readFileSync } from 'node:fs';
const ids = JSON.parse(readFileSync('/tmp/bdb/ids.json','utf8'));
const db = new Database('/tmp/bdb/data/cms.sqlite', { readonly: true });
const d = JSON.parse(db.prepare('SELECT data FROM documents WHERE id = ?').pluck().get(ids[5000] + ':en:published'));
for (const [k, v] of Object.entries(d)) console.log(k.padEnd(22), JSON.stringify(v).length);
