import { test } from 'node:test';
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
