import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import pg from 'pg';
import { createPostgresAdapter, type PostgresAdapterOptions } from '../../src/storage/postgres/postgres-adapter.js';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

/** The PostgreSQL database the PostgreSQL tests use; they are skipped without one. */
export const postgresUrl: string | undefined = process.env.CMS_TEST_POSTGRES_URL?.trim() || undefined;

/** `skip` for the PostgreSQL suites: false when a database is given, else why they do not run. */
export const skipWithoutPostgres: false | string = postgresUrl
  ? false
  : 'CMS_TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test): PostgreSQL runs skipped';

export function requirePostgresUrl(): string {
  if (!postgresUrl) throw new Error('CMS_TEST_POSTGRES_URL is not set');
  return postgresUrl;
}

/** A schema name no other run uses: runs in parallel, or left over from a crash, never collide. */
export function uniqueSchemaName(): string {
  return `cms_test_${randomBytes(6).toString('hex')}`;
}

/** Runs SQL on a connection of its own, outside every adapter. */
export async function adminQuery<R extends pg.QueryResultRow>(sql: string, params: unknown[] = [], url = requirePostgresUrl()): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  await adminQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

/**
 * A new, empty schema and the database URL an operator would give to use it (its connections'
 * search_path set through the URL's `options`); `drop` removes it and all it holds.
 */
export interface SchemaDatabase {
  readonly schema: string;
  readonly url: string;
  /** Runs SQL in the database the store is in, on a direct connection of its own. */
  query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode in front of the test server (`postgres://postgres@127.0.0.1:6432`,
 * the same databases): with it, API tests reach their store through the pooler.
 */
export const poolerUrl: string | undefined = process.env.CMS_TEST_PGBOUNCER_URL?.trim() || undefined;

export async function newSchemaDatabase(): Promise<SchemaDatabase> {
  if (poolerUrl) return newPooledDatabase(poolerUrl);
  const schema = uniqueSchemaName();
  await adminQuery(`CREATE SCHEMA "${schema}"`);
  const url = new URL(requirePostgresUrl());
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { schema, url: url.toString(), query: (sql, params) => adminQuery(sql, params), drop: () => dropSchema(schema) };
}

/**
 * Behind a pooler a connection's settings do not follow it from one transaction to the next, so
 * no `search_path` can pick a schema: each store gets a database of its own, reached through the
 * pooler with `pgbouncer=true`. Dropping it forces the pooler's idle server connections out.
 */
async function newPooledDatabase(pooler: string): Promise<SchemaDatabase> {
  const database = uniqueSchemaName();
  await adminQuery(`CREATE DATABASE "${database}"`);
  const url = new URL(pooler);
  url.pathname = `/${database}`;
  url.searchParams.set('pgbouncer', 'true');
  const direct = new URL(requirePostgresUrl());
  direct.pathname = `/${database}`;
  return {
    schema: 'public',
    url: url.toString(),
    query: (sql, params) => adminQuery(sql, params, direct.toString()),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).then(() => undefined),
  };
}

/** A new adapter on a new, empty schema; `cleanup` drops the schema (close the adapter first). */
export async function makePostgresAdapter(
  options: Partial<PostgresAdapterOptions> = {},
): Promise<{ adapter: StorageAdapter; schema: string; cleanup: () => Promise<void> }> {
  const schema = uniqueSchemaName();
  await adminQuery(`CREATE SCHEMA "${schema}"`);
  const adapter = createPostgresAdapter({ attachmentsGenerationKey, connectionString: requirePostgresUrl(), schema, ...options });
  return { adapter, schema, cleanup: () => dropSchema(schema) };
}

/**
 * A suite that needs PostgreSQL: without CMS_TEST_POSTGRES_URL it is one skipped test saying
 * why, so that the run shows what it left out.
 */
export function describeOnPostgres(name: string, body: () => void): void {
  if (skipWithoutPostgres) it(name, { skip: skipWithoutPostgres }, () => undefined);
  else describe(name, body);
}
