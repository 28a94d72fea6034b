import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { sqliteDriverPackage } from '../../src/storage/sqlite/driver.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const require = createRequire(import.meta.url);

describe(`the server on Node.js ${process.version}`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('loads the SQLite driver built for this Node-API version', () => {
    const { version } = require(`${sqliteDriverPackage}/package.json`) as { version: string };
    const expectedMajor = Number(process.versions.napi) >= 10 ? '13' : '12';
    assert.equal(version.split('.')[0], expectedMajor);
  });

  // better-sqlite3 12 built for Node 24.19+ aborted the whole process the first time a garbage
  // collection outside JavaScript freed one of its statements (migrations leave some behind).
  // Enough work to run many collections: the process must live to count the documents.
  it('survives garbage collection of prepared statements under steady traffic', async () => {
    const rounds = 60;
    for (let round = 0; round < rounds; round++) {
      const created = await t.request('POST', '/api/v1/note', { body: { title: `Note ${round}`, text: 'x'.repeat(2000) } });
      assert.equal(created.status, 200);
      const listed = await t.request('GET', '/api/v1/note?perPage=50&search=note');
      assert.equal(listed.status, 200);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const listed = await t.request('GET', '/api/v1/note?perPage=1');
    assert.equal(listed.status, 200);
    assert.equal(listed.body.pages, rounds);
  });
});
