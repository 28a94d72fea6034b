import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import assert from 'node:assert/strict';
import { newSchemaDatabase, type SchemaDatabase } from './postgres.js';

/** Archives of `cms export` taken apart and put together again, and empty stores to import them into. */

/** A store to import into: a data directory, and the database URL (a SQLite file in it, or a PostgreSQL schema). */
export interface Target {
  readonly dataDir: string;
  readonly env: Record<string, string>;
  /** A PostgreSQL target's schema, to read its catalog. */
  readonly database?: SchemaDatabase;
  remove(): Promise<void>;
}

export async function sqliteTarget(): Promise<Target> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cms-import-'));
  // The URL named, so that an app started on it under `npm run test:postgres` opens this store too.
  const env = { CMS_DATA_DIR: dataDir, CMS_DATABASE_URL: `sqlite:${join(dataDir, 'cms.sqlite')}` };
  return { dataDir, env, remove: () => rm(dataDir, { recursive: true, force: true }) };
}

export async function postgresTarget(): Promise<Target> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cms-import-pg-'));
  const database = await newSchemaDatabase();
  return {
    dataDir,
    env: { CMS_DATA_DIR: dataDir, CMS_DATABASE_URL: database.url },
    database,
    async remove() {
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** What the archive's entries hold, in order. */
export async function entriesOf(archive: Buffer): Promise<{ name: string; data: Buffer }[]> {
  const extract = tar.extract();
  Readable.from([gunzipSync(archive)]).pipe(extract);
  const entries: { name: string; data: Buffer }[] = [];
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    entries.push({ name: entry.header.name, data: Buffer.concat(chunks) });
  }
  return entries;
}

export async function packed(entries: readonly { name: string; data: Buffer }[]): Promise<Buffer> {
  const pack = tar.pack();
  for (const { name, data } of entries) pack.entry({ name, size: data.length }, data);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

/** The archive with one part replaced and its manifest entry made to match, so only the part's content is wrong. */
export async function withPart(archive: Buffer, name: string, data: Buffer): Promise<Buffer> {
  const entries = await entriesOf(archive);
  const manifestEntry = entries.find((entry) => entry.name === 'manifest.json')!;
  const manifest = JSON.parse(manifestEntry.data.toString());
  const part = manifest.parts.find((listed: { name: string }) => listed.name === name);
  Object.assign(part, { bytes: data.length, lines: data.toString().split('\n').length - 1, sha256: createHash('sha256').update(data).digest('hex') });
  manifestEntry.data = Buffer.from(JSON.stringify(manifest));
  return packed(entries.map((entry) => (entry.name === name ? { name, data } : entry)));
}
