import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteAdapter } from '/work/main/dist/src/storage/sqlite/sqlite-adapter.js';
import { makeDoc, makeIndex } from '/work/main/dist/test/contract/contract-helpers.js';
const dir = await mkdtemp(join(tmpdir(), 'rt-')); const filename = join(dir, 'cms.sqlite');
const a = createSqliteAdapter({ filename, readThreads: 2 }); await a.migrate();
await a.transaction(async (tx) => { for (let n = 0; n < 3000; n++) { const doc = { ...makeDoc({ docId: `d${n}` }), rank: (n * 7919) % 3000 }; await tx.documents.insert(doc, makeIndex()); } });
const q = { type: 'article', locale: 'en', mode: 'draft', archived: false, sort: [{ field: 'rank', direction: -1 }], skip: 100, limit: 10 };
for (let i = 0; i < 8; i++) {
  let turns = 0, done = false; const spin = () => { turns++; if (!done) setImmediate(spin); }; setImmediate(spin);
  const t = performance.now(); await a.documents.find(q); done = true;
  console.log('turns', turns, (performance.now() - t).toFixed(2), 'ms');
}
await a.close();
