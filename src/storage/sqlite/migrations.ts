import type BetterSqlite3 from 'better-sqlite3';

/**
 * The schema, one entry per version: entry `i` upgrades a database at `PRAGMA user_version = i`
 * to `i + 1`. Append new entries; never edit one that has shipped.
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE documents (
    id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL,
    type TEXT NOT NULL,
    locale TEXT NOT NULL,
    mode TEXT NOT NULL,
    slug TEXT NOT NULL,
    archived INTEGER NOT NULL,
    visibility TEXT NOT NULL,
    title_sortified TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE UNIQUE INDEX documents_slug ON documents (locale, mode, slug);
  CREATE INDEX documents_list_updated ON documents (type, locale, mode, archived, updated_at);
  CREATE INDEX documents_list_created ON documents (type, locale, mode, archived, created_at);
  CREATE INDEX documents_list_title ON documents (type, locale, mode, archived, title_sortified);
  CREATE INDEX documents_doc_id ON documents (doc_id);

  CREATE TABLE user_logins (
    user_id TEXT PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    email TEXT UNIQUE,
    password_hash TEXT NOT NULL
  );

  CREATE TABLE bearer_tokens (
    token TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX bearer_tokens_user_id ON bearer_tokens (user_id);
  `,
];

/** Applies the migrations the database has not seen yet, all in one immediate transaction. */
export function runMigrations(db: BetterSqlite3.Database): void {
  const upgrade = db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    for (let version = current; version < migrations.length; version++) {
      db.exec(migrations[version]);
      db.pragma(`user_version = ${version + 1}`);
    }
  });
  upgrade.immediate();
}
