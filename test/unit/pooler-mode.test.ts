import { test } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { poolerMode } from '../../src/storage/postgres/postgres-adapter.js';

test('pgbouncer=true in a database URL names a pooler in transaction mode and leaves the URL pg reads', () => {
  assert.deepEqual(poolerMode('postgres://u:p@db:6432/cms'), { connectionString: 'postgres://u:p@db:6432/cms', transactionPooler: false });
  assert.deepEqual(poolerMode('postgres://u:p@db:6432/cms?pgbouncer=true'), { connectionString: 'postgres://u:p@db:6432/cms', transactionPooler: true });
  assert.deepEqual(poolerMode('postgres://db/cms?sslmode=require&pgbouncer=true'), {
    connectionString: 'postgres://db/cms?sslmode=require',
    transactionPooler: true,
  });
  assert.deepEqual(poolerMode('postgres://db/cms?pgbouncer=true&sslmode=require'), {
    connectionString: 'postgres://db/cms?sslmode=require',
    transactionPooler: true,
  });
  assert.deepEqual(poolerMode('postgres://db/cms?a=1&pgbouncer=false&b=2'), { connectionString: 'postgres://db/cms?a=1&b=2', transactionPooler: false });
  assert.throws(() => poolerMode('postgres://db/cms?pgbouncer=yes'), /pgbouncer must be true or false/);
});

/**
 * Behind a pooler in transaction mode, a server session is lent for one transaction only: a
 * statement that leaves state in the session (a session advisory lock, a SET without LOCAL, a
 * LISTEN, a named PREPARE, a temporary table, a cursor WITH HOLD) would reach whichever client
 * the pooler lends that session to next. The PostgreSQL adapter's SQL holds none of them.
 */
test('the PostgreSQL adapter sends no statement that leaves state in the server session', () => {
  const folder = fileURLToPath(new URL('../../../src/storage/postgres/', import.meta.url));
  const sessionState = [
    /pg_(try_)?advisory_lock(_shared)?\s*\(/i,
    /['"`;]\s*SET\s+(?!LOCAL\b)(SESSION\s+)?[a-z_.]+\s*(=|\bTO\b)/i,
    /\bset_config\s*\([^)]*,\s*false\s*\)/i,
    /\b(LISTEN|UNLISTEN)\s+[a-z_"]/i,
    /\bPREPARE\s+[a-z_"]+\s*(\(|AS)/i,
    /\bCREATE\s+(GLOBAL\s+|LOCAL\s+)?TEMP(ORARY)?\s+TABLE/i,
    /\bWITH\s+HOLD\b/i,
  ];
  const files = readdirSync(folder).filter((name) => name.endsWith('.ts'));
  assert.ok(files.length > 5, `found the adapter's files in ${folder}`);
  for (const name of files) {
    const source = readFileSync(join(folder, name), 'utf8');
    for (const pattern of sessionState) assert.doesNotMatch(source, pattern, `${name} leaves state in the server session`);
  }
});
