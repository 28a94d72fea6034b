import type BetterSqlite3 from 'better-sqlite3';
import { historyMigration, historyPoolsMigration } from './history-migration.js';
import { schedulesMigration } from './migration-schedules.js';
import { reviewMigration } from './migration-review.js';
import { shareLinksMigration } from './migration-share-links.js';
import { accountSecurityMigration } from './migration-account-security.js';
import { releasesMigration } from './migration-releases.js';
import { scheduleReviewMigration } from './migration-schedule-review.js';

import { auditMigration } from './audit-migration.js';
import { changeLogMigration, changeLogSyncMigration } from './change-log-migration.js';
import { presenceMigration } from './presence-migration.js';
import { preferencesMigration } from './preferences-migration.js';
import { idempotencyKeysMigration } from './idempotency-migration.js';

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
  // 2: filter values and full-text search. They key on `seq`, an explicit INTEGER PRIMARY KEY,
  // because VACUUM may renumber an implicit rowid and so detach them from their document.
  `
  CREATE TABLE documents_v2 (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
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
  INSERT INTO documents_v2 (id, doc_id, type, locale, mode, slug, archived, visibility, title_sortified,
      created_at, updated_at, data)
    SELECT id, doc_id, type, locale, mode, slug, archived, visibility, title_sortified,
      created_at, updated_at, data
    FROM documents ORDER BY rowid;
  DROP TABLE documents;
  ALTER TABLE documents_v2 RENAME TO documents;
  CREATE UNIQUE INDEX documents_slug ON documents (locale, mode, slug);
  CREATE INDEX documents_list_updated ON documents (type, locale, mode, archived, updated_at);
  CREATE INDEX documents_list_created ON documents (type, locale, mode, archived, created_at);
  CREATE INDEX documents_list_title ON documents (type, locale, mode, archived, title_sortified);
  CREATE INDEX documents_doc_id ON documents (doc_id);

  -- The primary key is the filter index itself: every condition is a range of (key, value) and
  -- yields seqs without touching another b-tree, and WITHOUT ROWID stores each entry once
  -- instead of in a table and again in an index. It also drops a value repeated in one document.
  -- STRICT with ANY keeps a value's type as written: 3 stays a number, '3' stays text.
  CREATE TABLE document_values (
    key TEXT NOT NULL,
    value ANY NOT NULL,
    seq INTEGER NOT NULL REFERENCES documents (seq) ON DELETE CASCADE,
    PRIMARY KEY (key, value, seq)
  ) STRICT, WITHOUT ROWID;
  -- Serves the cascade on delete and the "no value for this key" test of one document.
  CREATE INDEX document_values_seq ON document_values (seq, key);

  -- Stemmed search ("running" finds "runs"). Contentless: the texts live in documents.data
  -- already; contentless_delete lets a document's row be deleted and replaced.
  CREATE VIRTUAL TABLE document_search USING fts5 (
    title, high, low, public_title, public_high, public_low,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  -- Autocomplete: the porter tokenizer stems a prefix query too, so "runni*" would look for
  -- stems beginning "runni" and miss "running" (stored as "run"). Prefix searches read these
  -- unstemmed words; the prefix index answers the short prefixes typed first.
  CREATE VIRTUAL TABLE document_words USING fts5 (
    title, high, low, public_title, public_high, public_low,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
  );
  `,
  // 3: uploaded files. Which document versions hold an attachment is a table of its own, so a
  // document write updates its own rows instead of rewriting every attachment record it names.
  `
  CREATE TABLE attachments (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    data TEXT NOT NULL
  );

  CREATE TABLE attachment_uses (
    doc_version_id TEXT NOT NULL,
    attachment_id TEXT NOT NULL REFERENCES attachments (id) ON DELETE CASCADE,
    archived INTEGER NOT NULL,
    PRIMARY KEY (doc_version_id, attachment_id)
  ) WITHOUT ROWID;
  CREATE INDEX attachment_uses_attachment ON attachment_uses (attachment_id);
  `,
  // 4: the list indexes hold everything a page is chosen by besides the filter values: the id
  // that breaks sort ties, and the visibility anonymous lists filter on. Counting a type's public
  // documents or skipping to a deep page then reads index entries only, never the documents.
  `
  DROP INDEX documents_list_updated;
  DROP INDEX documents_list_created;
  DROP INDEX documents_list_title;
  CREATE INDEX documents_list_updated ON documents (type, locale, mode, archived, updated_at, id, visibility);
  CREATE INDEX documents_list_created ON documents (type, locale, mode, archived, created_at, id, visibility);
  CREATE INDEX documents_list_title ON documents (type, locale, mode, archived, title_sortified, id, visibility);
  `,
  // 5: filter values are kept per type, locale and mode, the scope of every list. A filter then
  // gathers the documents of the list it filters, not those of every type, locale and mode that
  // happen to use the same field name (the drafts alone doubled the set).
  `
  CREATE TABLE document_values_v2 (
    type TEXT NOT NULL,
    locale TEXT NOT NULL,
    mode TEXT NOT NULL,
    key TEXT NOT NULL,
    value ANY NOT NULL,
    seq INTEGER NOT NULL REFERENCES documents (seq) ON DELETE CASCADE,
    PRIMARY KEY (type, locale, mode, key, value, seq)
  ) STRICT, WITHOUT ROWID;
  INSERT INTO document_values_v2 (type, locale, mode, key, value, seq)
    SELECT documents.type, documents.locale, documents.mode, document_values.key, document_values.value, document_values.seq
    FROM document_values JOIN documents ON documents.seq = document_values.seq;
  DROP TABLE document_values;
  ALTER TABLE document_values_v2 RENAME TO document_values;
  -- Serves the cascade on delete, "no value for this key", and filters outside one scope.
  CREATE INDEX document_values_seq ON document_values (seq, key);
  `,
  // 6: failed logins per key (a username's or a client address's digest). A lock extends
  // period_ends to its own end, so every entry is over, and may go, once period_ends has passed.
  `
  CREATE TABLE login_throttle (
    key TEXT PRIMARY KEY,
    failures INTEGER NOT NULL,
    period_ends INTEGER NOT NULL,
    locked_until INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX login_throttle_period_ends ON login_throttle (period_ends);
  `,
  // 7: a generation per scope (a piece type, or '(attachments)' for the attachments and their
  // uses), counted up by triggers in the transaction of every write to it: a cached answer stays
  // valid while the scopes it was built from stand (StorageAdapter.generation), whatever else is
  // written. A version never changes type, so an update counts up its type once.
  `
  CREATE TABLE generations (
    scope TEXT PRIMARY KEY,
    value INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  CREATE TRIGGER documents_insert_generation AFTER INSERT ON documents BEGIN
    INSERT INTO generations (scope, value) VALUES (NEW.type, 1) ON CONFLICT (scope) DO UPDATE SET value = value + 1;
  END;
  CREATE TRIGGER documents_update_generation AFTER UPDATE ON documents BEGIN
    INSERT INTO generations (scope, value) VALUES (NEW.type, 1) ON CONFLICT (scope) DO UPDATE SET value = value + 1;
  END;
  CREATE TRIGGER documents_delete_generation AFTER DELETE ON documents BEGIN
    INSERT INTO generations (scope, value) VALUES (OLD.type, 1) ON CONFLICT (scope) DO UPDATE SET value = value + 1;
  END;
  CREATE TRIGGER attachments_insert_generation AFTER INSERT ON attachments BEGIN
    INSERT INTO generations (scope, value) VALUES ('(attachments)', 1) ON CONFLICT (scope) DO UPDATE SET value = value + 1;
  END;
  CREATE TRIGGER attachments_update_generation AFTER UPDATE ON attachments BEGIN
    INSERT INTO generations (scope, value) VALUES ('(attachments)', 1) ON CONFLICT (scope) DO UPDATE SET value = value + 1;
  END;
  CREATE TRIGGER attachments_delete_generation AFTER DELETE ON attachments BEGIN
    INSERT INTO generations (scope, value) VALUES ('(attachments)', 1) ON CONFLICT (scope) DO UPDATE SET value = value + 1;
  END;
  CREATE TRIGGER attachment_uses_insert_generation AFTER INSERT ON attachment_uses BEGIN
    INSERT INTO generations (scope, value) VALUES ('(attachments)', 1) ON CONFLICT (scope) DO UPDATE SET value = value + 1;
  END;
  CREATE TRIGGER attachment_uses_update_generation AFTER UPDATE ON attachment_uses BEGIN
    INSERT INTO generations (scope, value) VALUES ('(attachments)', 1) ON CONFLICT (scope) DO UPDATE SET value = value + 1;
  END;
  CREATE TRIGGER attachment_uses_delete_generation AFTER DELETE ON attachment_uses BEGIN
    INSERT INTO generations (scope, value) VALUES ('(attachments)', 1) ON CONFLICT (scope) DO UPDATE SET value = value + 1;
  END;
  `,
  // 8: how many versions each list scope holds (type, locale, mode, archived, visibility), kept
  // by triggers in the transaction of every write: an unfiltered list counts its page total from
  // a few rows of this table instead of every index entry of the type.
  `
  CREATE TABLE document_counts (
    type TEXT NOT NULL,
    locale TEXT NOT NULL,
    mode TEXT NOT NULL,
    archived INTEGER NOT NULL,
    visibility TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (type, locale, mode, archived, visibility)
  ) STRICT, WITHOUT ROWID;
  INSERT INTO document_counts (type, locale, mode, archived, visibility, count)
    SELECT type, locale, mode, archived, visibility, COUNT(*) FROM documents GROUP BY type, locale, mode, archived, visibility;
  CREATE TRIGGER documents_insert_count AFTER INSERT ON documents BEGIN
    INSERT INTO document_counts (type, locale, mode, archived, visibility, count) VALUES (NEW.type, NEW.locale, NEW.mode, NEW.archived, NEW.visibility, 1)
      ON CONFLICT (type, locale, mode, archived, visibility) DO UPDATE SET count = count + 1;
  END;
  CREATE TRIGGER documents_delete_count AFTER DELETE ON documents BEGIN
    UPDATE document_counts SET count = count - 1 WHERE type = OLD.type AND locale = OLD.locale AND mode = OLD.mode AND archived = OLD.archived AND visibility = OLD.visibility;
  END;
  CREATE TRIGGER documents_update_count AFTER UPDATE OF type, locale, mode, archived, visibility ON documents
    WHEN OLD.type IS NOT NEW.type OR OLD.locale IS NOT NEW.locale OR OLD.mode IS NOT NEW.mode
      OR OLD.archived IS NOT NEW.archived OR OLD.visibility IS NOT NEW.visibility
  BEGIN
    UPDATE document_counts SET count = count - 1 WHERE type = OLD.type AND locale = OLD.locale AND mode = OLD.mode AND archived = OLD.archived AND visibility = OLD.visibility;
    INSERT INTO document_counts (type, locale, mode, archived, visibility, count) VALUES (NEW.type, NEW.locale, NEW.mode, NEW.archived, NEW.visibility, 1)
      ON CONFLICT (type, locale, mode, archived, visibility) DO UPDATE SET count = count + 1;
  END;
  `,
  // 9: the search texts get a table of their own, and both full-text tables index it as their
  // external content. A changed document's old terms are then removed with FTS5's 'delete'
  // command, whose cost follows the document's own texts; contentless_delete kept a tombstone
  // per segment instead, whose pages every delete rewrote, more of them as the store grew. A write
  // whose texts did not change now leaves the full-text tables alone (PendingSearchWrites). The
  // prefix table indexes the title and high texts only, the words autocomplete completes in the
  // original (facts 2.6). The texts cannot be derived in SQL: index_plans starts empty, so every
  // type is indexed again at the next start (content/indexing/reindex.ts).
  `
  DROP TABLE document_search;
  DROP TABLE document_words;
  CREATE TABLE document_texts (
    seq INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    high TEXT NOT NULL,
    low TEXT NOT NULL,
    public_title TEXT NOT NULL,
    public_high TEXT NOT NULL,
    public_low TEXT NOT NULL
  ) STRICT;
  CREATE VIRTUAL TABLE document_search USING fts5 (
    title, high, low, public_title, public_high, public_low,
    content = 'document_texts', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  CREATE VIRTUAL TABLE document_words USING fts5 (
    title, high, public_title, public_high,
    content = 'document_texts', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
  );
  CREATE TABLE index_plans (
    type TEXT PRIMARY KEY,
    digest TEXT NOT NULL
  ) STRICT;
  `,
  // 10: reclaiming attachments. `readable` says whether the files are to be served (written with
  // the usage that decides it), `files_readable` what they were last made (after the commit), so
  // a sweep finds the attachments whose files are behind; `unused_since` (ms) is when the last
  // version holding the attachment let it go, or its upload. Existing attachments get the rule of
  // the content layer once: unused ones from now, those held by archived versions only unreadable.
  `
  ALTER TABLE attachments ADD COLUMN readable INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE attachments ADD COLUMN files_readable INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE attachments ADD COLUMN unused_since INTEGER;
  UPDATE attachments SET unused_since = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
    WHERE NOT EXISTS (SELECT 1 FROM attachment_uses WHERE attachment_id = attachments.id);
  UPDATE attachments SET readable = 0
    WHERE EXISTS (SELECT 1 FROM attachment_uses WHERE attachment_id = attachments.id)
    AND NOT EXISTS (SELECT 1 FROM attachment_uses WHERE attachment_id = attachments.id AND archived = 0);
  CREATE INDEX attachments_unused ON attachments (unused_since) WHERE unused_since IS NOT NULL;
  CREATE INDEX attachments_unsettled ON attachments (id) WHERE readable <> files_readable;
  `,
  // 11: the digests of the first-run setup codes the processes of this store made and logged, so
  // that each accepts every one (FirstRunSetup): plain processes on one file each make their own.
  `
  CREATE TABLE setup_codes (
    digest TEXT PRIMARY KEY
  ) STRICT, WITHOUT ROWID;
  `,
  // 12: API keys made by `cms apikey create`, kept as SHA-256 digests. The digest is the primary
  // key: the server looks a presented key up by it on every request that carries one.
  `
  CREATE TABLE api_keys (
    digest TEXT PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    label TEXT NOT NULL,
    hint TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT
  ) STRICT, WITHOUT ROWID;
  `,
  // 13: the webhook outbox: one row per event and endpoint, written in the transaction of the
  // change. AUTOINCREMENT: ids never come back after pruning, so they order a document's events.
  // A pending row is sent when due, unleased, and no earlier pending row of its document and endpoint exists.
  `
  CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    event TEXT NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    last_status_code INTEGER,
    last_error TEXT,
    next_attempt_at INTEGER NOT NULL,
    lease_until INTEGER NOT NULL DEFAULT 0,
    lease_token TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint, doc_id, id) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (updated_at) WHERE status <> 'pending';
  CREATE INDEX webhook_deliveries_status ON webhook_deliveries (status, endpoint, id);
  `,
  // 14: who uploaded an attachment (its caller id: `user:<id>` or `key:<digest>`), outside the
  // record's data so that no answer that shows the record shows it. Older uploads have none.
  `
  ALTER TABLE attachments ADD COLUMN uploaded_by TEXT;
  `,
  // 15: generation keys instead of scopes, and no key named by the schema: the documents'
  // triggers count up their type still (renaming the column renames it in them), while the
  // attachment writes count up the key the adapter is given (the content layer's), in the
  // transaction of each write that changes a row.
  `
  DROP TRIGGER attachments_insert_generation;
  DROP TRIGGER attachments_update_generation;
  DROP TRIGGER attachments_delete_generation;
  DROP TRIGGER attachment_uses_insert_generation;
  DROP TRIGGER attachment_uses_update_generation;
  DROP TRIGGER attachment_uses_delete_generation;
  ALTER TABLE generations RENAME COLUMN scope TO key;
  `,
  // 16: editors' advisory locks, one per document version, outside the documents so that taking
  // or refreshing one writes no version and moves no generation (no cached answer is dropped).
  `
  CREATE TABLE advisory_locks (
    version_id TEXT PRIMARY KEY,
    tab_id TEXT NOT NULL,
    user_id TEXT,
    username TEXT,
    title TEXT NOT NULL,
    refreshed_at INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  `,
  // 17: a generation per type and mode besides the type's (`<type>:<mode>`, `<type>:` for a type
  // without modes; content/generation-keys.ts): a cached answer that shows published versions
  // stands while only drafts are saved. A version moved to another mode counts up both modes.
  // The new keys start at 0 (no row), as every key written for the first time does.
  `
  DROP TRIGGER documents_insert_generation;
  DROP TRIGGER documents_update_generation;
  DROP TRIGGER documents_delete_generation;
  CREATE TRIGGER documents_insert_generation AFTER INSERT ON documents BEGIN
    INSERT INTO generations (key, value) VALUES (NEW.type, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1;
    INSERT INTO generations (key, value) VALUES (NEW.type || ':' || NEW.mode, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1;
  END;
  CREATE TRIGGER documents_update_generation AFTER UPDATE ON documents BEGIN
    INSERT INTO generations (key, value) VALUES (NEW.type, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1;
    INSERT INTO generations (key, value) VALUES (NEW.type || ':' || NEW.mode, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1;
    INSERT INTO generations (key, value) SELECT OLD.type || ':' || OLD.mode, 1 WHERE OLD.mode IS NOT NEW.mode ON CONFLICT (key) DO UPDATE SET value = value + 1;
  END;
  CREATE TRIGGER documents_delete_generation AFTER DELETE ON documents BEGIN
    INSERT INTO generations (key, value) VALUES (OLD.type, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1;
    INSERT INTO generations (key, value) VALUES (OLD.type || ':' || OLD.mode, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1;
  END;
  `,
  // 18: the documents' reverse ids (relatedReverseIds), a row per id in the order added (seq,
  // per version), out of the data of the version they name: adding one is an indexed insert, not
  // a rewrite of the version with all the others. Its data keeps an empty array, which marks it
  // as named.
  `
  CREATE TABLE document_reverse_ids (
    target_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    source_doc_id TEXT NOT NULL,
    PRIMARY KEY (target_id, seq)
  ) STRICT, WITHOUT ROWID;
  CREATE UNIQUE INDEX document_reverse_ids_source ON document_reverse_ids (target_id, source_doc_id);
  INSERT OR IGNORE INTO document_reverse_ids (target_id, seq, source_doc_id)
    SELECT documents.id, ids.key + 1, ids.value FROM documents, json_each(documents.data, '$.relatedReverseIds') AS ids
    WHERE json_type(documents.data, '$.relatedReverseIds') = 'array' AND ids.type = 'text';
  UPDATE documents SET data = json_set(data, '$.relatedReverseIds', json('[]'))
    WHERE json_type(data, '$.relatedReverseIds') = 'array' AND json_array_length(data, '$.relatedReverseIds') > 0;
  `,
  // 19: a generation per document version
  // (StorageAdapter.generations' `versions`): a cached answer that shows one document stands
  // while other documents of its type are written. A row per version, removed with the version:
  // the table never outgrows the documents. Its value is
  // the type's generation just counted up (the same trigger, in order), so no value of a version
  // ever comes back, a version removed and made again (an unpublish, a publish) included; absent
  // is 0, and the versions there are now start at -1 (never a counted value).
  `
  CREATE TABLE version_generations (
    id TEXT PRIMARY KEY,
    value INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  INSERT INTO version_generations (id, value) SELECT id, -1 FROM documents;
  DROP TRIGGER documents_insert_generation;
  DROP TRIGGER documents_update_generation;
  DROP TRIGGER documents_delete_generation;
  CREATE TRIGGER documents_insert_generation AFTER INSERT ON documents BEGIN
    INSERT INTO generations (key, value) VALUES (NEW.type, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1;
    INSERT INTO generations (key, value) VALUES (NEW.type || ':' || NEW.mode, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1;
    INSERT INTO version_generations (id, value) VALUES (NEW.id, (SELECT value FROM generations WHERE key = NEW.type))
      ON CONFLICT (id) DO UPDATE SET value = excluded.value;
  END;
  CREATE TRIGGER documents_update_generation AFTER UPDATE ON documents BEGIN
    INSERT INTO generations (key, value) VALUES (NEW.type, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1;
    INSERT INTO generations (key, value) VALUES (NEW.type || ':' || NEW.mode, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1;
    INSERT INTO generations (key, value) SELECT OLD.type || ':' || OLD.mode, 1 WHERE OLD.mode IS NOT NEW.mode ON CONFLICT (key) DO UPDATE SET value = value + 1;
    INSERT INTO version_generations (id, value) VALUES (NEW.id, (SELECT value FROM generations WHERE key = NEW.type))
      ON CONFLICT (id) DO UPDATE SET value = excluded.value;
  END;
  CREATE TRIGGER documents_delete_generation AFTER DELETE ON documents BEGIN
    INSERT INTO generations (key, value) VALUES (OLD.type, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1;
    INSERT INTO generations (key, value) VALUES (OLD.type || ':' || OLD.mode, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1;
    DELETE FROM version_generations WHERE id = OLD.id;
  END;
  `,
  // 20: document history (history-migration.ts).
  historyMigration,
  // 21: scheduled publishing (migration-schedules.ts).
  schedulesMigration,
  // 22: the audit trail (audit-migration.ts).
  auditMigration,
  // 23: preview links that expire (migration-share-links.ts).
  shareLinksMigration,
  // 24: a scheduled publish refuses a draft changed by someone who may not publish it (migration-schedule-review.ts).
  scheduleReviewMigration,
  // 25: history pruned by pool: the first entry, publishes and each role's changes (history-migration.ts).
  historyPoolsMigration,
  // 26: the change log the change stream reads (change-log-migration.ts).
  changeLogMigration,
  // 27: who has which document open (presence-migration.ts).
  presenceMigration,
  // 28: each user's admin preferences (preferences-migration.ts).
  preferencesMigration,
  // 29: the records of writes sent with an Idempotency-Key (idempotency-migration.ts).
  idempotencyKeysMigration,
  // 30: the change log's visibility before a change and the sync tokens' key (change-log-migration.ts).
  changeLogSyncMigration,
  // 31: TOTP secrets and one-time account codes: recovery, password reset, TOTP setup (migration-account-security.ts).
  accountSecurityMigration,
  // 32: releases, drafts published together (migration-releases.ts).
  releasesMigration,
  // 33: review of drafts: comments and approve links (migration-review.ts).
  reviewMigration,
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
