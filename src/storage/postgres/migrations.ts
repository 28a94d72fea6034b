import type { Pool } from 'pg';
import { untimed } from './connections.js';
import { historyMigration, historyPoolsMigration } from './history-migration.js';
import { schedulesMigration } from './migration-schedules.js';
import { auditMigration } from './audit-migration.js';
import { changeLogMigration, changeLogSyncMigration } from './change-log-migration.js';
import { presenceMigration } from './presence-migration.js';
import { preferencesMigration } from './preferences-migration.js';
import { idempotencyKeysMigration } from './idempotency-migration.js';
import { reviewMigration } from './migration-review.js';
import { shareLinksMigration } from './migration-share-links.js';
import { accountSecurityMigration } from './migration-account-security.js';
import { releasesMigration } from './migration-releases.js';
import { scheduleReviewMigration } from './migration-schedule-review.js';

/**
 * How many characters of a slug or a sortified title the b-tree indexes hold: a b-tree entry
 * holds at most 2704 bytes, and 4 bytes a character is the most UTF-8 takes. The number is
 * written into migration 1, which must not change: a new length needs a new migration.
 */
export const keyLength = 200;

/** Filter texts up to this many bytes (UTF-8) are held by the value index itself; as fixed by migration 1. */
export const shortTextBytes = 1000;

/**
 * The schema, one entry per version: entry `i` upgrades a schema at version `i` (the highest row
 * of schema_migrations, 0 when there is none) to `i + 1`. Append new entries; never edit one
 * that has shipped.
 *
 * Every text column that is compared, sorted or indexed is `COLLATE "C"`: bytewise, the order of
 * SQLite's BINARY collation, whatever the database's locale, and the order the indexes keep.
 */
export const migrations: readonly string[] = [
  `
  -- Stemmed search without stop words, as SQLite's porter tokenizer: "the who" stays findable.
  -- The snowball english dictionary with no StopWords option keeps every word; a dictionary
  -- needs no superuser, only CREATE on the schema.
  CREATE TEXT SEARCH DICTIONARY cms_english_stem (TEMPLATE = pg_catalog.snowball, LANGUAGE = english);
  CREATE TEXT SEARCH CONFIGURATION cms_english (COPY = pg_catalog.english);
  ALTER TEXT SEARCH CONFIGURATION cms_english ALTER MAPPING REPLACE english_stem WITH cms_english_stem;

  -- The texts of one document as one vector, weighted title A, high B, low C. Concatenated
  -- vectors would continue each other's positions, so that a phrase could run from the end of
  -- the title into the body; a placeholder lexeme (a space, which no parser yields) takes one
  -- position between them and is deleted again.
  CREATE FUNCTION cms_search_vector(config regconfig, title text, high text, low text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT ts_delete(
      setweight(to_tsvector(config, title), 'A') || ''' '':1'::tsvector
        || setweight(to_tsvector(config, high), 'B') || ''' '':1'::tsvector
        || setweight(to_tsvector(config, low), 'C'),
      ' '::text) $$;

  -- Autocomplete: the last word of a query matches the words it begins. Works on the text form
  -- of a query PostgreSQL built itself, so the lexemes are already quoted.
  CREATE FUNCTION cms_prefix_query(query tsquery) RETURNS tsquery
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT CASE WHEN numnode(query) = 0 THEN query ELSE (query::text || ':*')::tsquery END $$;

  CREATE TABLE documents (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text COLLATE "C" NOT NULL,
    doc_id text COLLATE "C" NOT NULL,
    type text COLLATE "C" NOT NULL,
    locale text COLLATE "C" NOT NULL,
    mode text COLLATE "C" NOT NULL,
    slug text COLLATE "C" NOT NULL,
    archived boolean NOT NULL,
    visibility text COLLATE "C" NOT NULL,
    title_sortified text COLLATE "C" NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL,
    -- json, not jsonb: the document comes back exactly as written, key order included.
    data json NOT NULL,
    -- Stemmed (cms_english) and unstemmed (simple, for prefixes) vectors of all the texts,
    -- and of the public texts alone.
    search tsvector NOT NULL,
    public_search tsvector NOT NULL,
    words tsvector NOT NULL,
    public_words tsvector NOT NULL,
    CONSTRAINT documents_id UNIQUE (id)
  );
  -- A b-tree entry holds at most 2704 bytes and a slug has no length limit: the index holds the
  -- beginning of the slug, which lookups and prefix searches use, and a hash of all of it, which
  -- makes it unique.
  CREATE UNIQUE INDEX documents_slug ON documents (locale, mode, left(slug, 200), md5(slug));
  -- A list is one type, locale, mode and archived state in one order; the id breaks ties and the
  -- visibility and seq are there so that a page or a count is chosen from index entries alone.
  -- title_sortified holds the first 200 characters of the sortified title (see the document store).
  -- The directions are those of the usual sorts (newest first, titles A to Z); the other
  -- direction reads the index backwards, with the ties sorted on their own.
  CREATE INDEX documents_list_updated ON documents (type, locale, mode, archived, updated_at DESC, id) INCLUDE (visibility, seq);
  CREATE INDEX documents_list_created ON documents (type, locale, mode, archived, created_at DESC, id) INCLUDE (visibility, seq);
  CREATE INDEX documents_list_title ON documents (type, locale, mode, archived, title_sortified, id) INCLUDE (visibility, seq);
  CREATE INDEX documents_doc_id ON documents (doc_id);
  CREATE INDEX documents_search ON documents USING gin (search);
  CREATE INDEX documents_public_search ON documents USING gin (public_search);
  CREATE INDEX documents_words ON documents USING gin (words);
  CREATE INDEX documents_public_words ON documents USING gin (public_words);

  -- Filter values, kept per type, locale and mode (the scope of every list). A value is a
  -- number or a text, never both: numbers compare as numbers and texts as texts, and each kind
  -- has its own index, so a range never crosses from one kind to the other. A document holds each
  -- value of a key once (the store writes them so), as the "all" filter counts on.
  CREATE TABLE document_values (
    seq bigint NOT NULL REFERENCES documents (seq) ON DELETE CASCADE,
    type text COLLATE "C" NOT NULL,
    locale text COLLATE "C" NOT NULL,
    mode text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    num double precision,
    txt text COLLATE "C",
    CONSTRAINT document_values_one_value CHECK ((num IS NULL) <> (txt IS NULL))
  );
  CREATE UNIQUE INDEX document_values_numbers ON document_values (type, locale, mode, key, num, seq) WHERE num IS NOT NULL;
  -- Texts up to 1000 bytes are in the index themselves (a filter reads index entries
  -- only); longer ones, which a b-tree entry cannot hold, are indexed by key alone and read from
  -- the table. Conditions name the predicates of both, so each uses its index.
  CREATE UNIQUE INDEX document_values_texts ON document_values (type, locale, mode, key, txt, seq)
    WHERE octet_length(txt) <= 1000;
  CREATE INDEX document_values_long_texts ON document_values (type, locale, mode, key, seq)
    WHERE octet_length(txt) > 1000;
  -- Serves the cascade on delete, "no value for this key", and filters outside one scope.
  CREATE INDEX document_values_seq ON document_values (seq, key);

  -- The columns of a scope go together (a type has its keys, a key its values, a list its
  -- archived and visibility states): without these the planner multiplies their selectivities,
  -- expects a handful of rows where a filter has thousands, and picks plans for a handful.
  CREATE STATISTICS document_values_scope (mcv, dependencies) ON type, locale, mode, key, num, txt FROM document_values;
  CREATE STATISTICS documents_scope (mcv, dependencies) ON type, locale, mode, archived, visibility FROM documents;

  CREATE TABLE user_logins (
    user_id text COLLATE "C" PRIMARY KEY,
    username text COLLATE "C" NOT NULL,
    email text COLLATE "C",
    password_hash text NOT NULL
  );
  -- Hashed, so that a name of any length fits in the index; lookups compare the hashes, then the names.
  CREATE UNIQUE INDEX user_logins_username ON user_logins (md5(username));
  CREATE UNIQUE INDEX user_logins_email ON user_logins (md5(email));

  CREATE TABLE bearer_tokens (
    token text COLLATE "C" CONSTRAINT bearer_tokens_token PRIMARY KEY,
    user_id text COLLATE "C" NOT NULL,
    expires_at text NOT NULL
  );
  CREATE INDEX bearer_tokens_user_id ON bearer_tokens (user_id);

  CREATE TABLE attachments (
    id text COLLATE "C" CONSTRAINT attachments_id PRIMARY KEY,
    created_at text NOT NULL,
    data json NOT NULL
  );

  -- Which document versions hold an attachment: a document write changes its own rows instead
  -- of rewriting every attachment record it names.
  CREATE TABLE attachment_uses (
    doc_version_id text COLLATE "C" NOT NULL,
    attachment_id text COLLATE "C" NOT NULL REFERENCES attachments (id) ON DELETE CASCADE,
    archived boolean NOT NULL,
    PRIMARY KEY (doc_version_id, attachment_id)
  );
  CREATE INDEX attachment_uses_attachment ON attachment_uses (attachment_id);
  `,
  // 2: failed logins per key (a username's or a client address's digest). A lock extends
  // period_ends to its own end, so every entry is over, and may go, once period_ends has passed.
  `
  CREATE TABLE login_throttle (
    key text COLLATE "C" CONSTRAINT login_throttle_key PRIMARY KEY,
    failures integer NOT NULL,
    period_ends bigint NOT NULL,
    locked_until bigint NOT NULL
  );
  CREATE INDEX login_throttle_period_ends ON login_throttle (period_ends);
  `,
  // 3: the id tie-break now runs the way the sort does, so the lists newest first order
  // by (updated_at DESC, id DESC): the index holds that order and a deep page walks it.
  `
  DROP INDEX documents_list_updated;
  DROP INDEX documents_list_created;
  CREATE INDEX documents_list_updated ON documents (type, locale, mode, archived, updated_at DESC, id DESC) INCLUDE (visibility, seq);
  CREATE INDEX documents_list_created ON documents (type, locale, mode, archived, created_at DESC, id DESC) INCLUDE (visibility, seq);
  `,
  // 4: the store's generation, one row that every write transaction counts up before it commits
  // (StorageAdapter.generation): caches of answers compare it instead of rereading the data.
  `
  CREATE TABLE store_generation (
    single boolean PRIMARY KEY DEFAULT true CHECK (single),
    value bigint NOT NULL
  );
  INSERT INTO store_generation (value) VALUES (0);
  `,
  // 5: a generation per scope (a piece type, or '(attachments)' for the attachments and their
  // uses) instead of one for the store, counted up by triggers in the transaction of every write
  // to it: a cached answer stays valid while the scopes it was built from stand, whatever else is
  // written (StorageAdapter.generation).
  `
  DROP TABLE store_generation;
  CREATE TABLE generations (
    scope text COLLATE "C" CONSTRAINT generations_scope PRIMARY KEY,
    value bigint NOT NULL
  );
  CREATE FUNCTION count_up_generation(counted text) RETURNS void LANGUAGE sql AS $$
    INSERT INTO generations (scope, value) VALUES (counted, 1)
      ON CONFLICT (scope) DO UPDATE SET value = generations.value + 1;
  $$;
  -- The documents' scope is their type; a version never changes type.
  CREATE FUNCTION count_up_document_generation() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'DELETE' THEN PERFORM count_up_generation(OLD.type); ELSE PERFORM count_up_generation(NEW.type); END IF;
    RETURN NULL;
  END;
  $$;
  CREATE FUNCTION count_up_attachments_generation() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM count_up_generation('(attachments)');
    RETURN NULL;
  END;
  $$;
  CREATE TRIGGER documents_generation AFTER INSERT OR UPDATE OR DELETE ON documents
    FOR EACH ROW EXECUTE FUNCTION count_up_document_generation();
  CREATE TRIGGER attachments_generation AFTER INSERT OR UPDATE OR DELETE ON attachments
    FOR EACH ROW EXECUTE FUNCTION count_up_attachments_generation();
  CREATE TRIGGER attachment_uses_generation AFTER INSERT OR UPDATE OR DELETE ON attachment_uses
    FOR EACH ROW EXECUTE FUNCTION count_up_attachments_generation();
  `,
  // 6: which index plan (fields, search texts, projection) each type's stored index was derived
  // by. Empty at first: every type is indexed again at the next start (content/indexing/reindex.ts),
  // which also fills the prefix vectors from the title and high texts only.
  `
  CREATE TABLE index_plans (
    type text COLLATE "C" CONSTRAINT index_plans_type PRIMARY KEY,
    digest text NOT NULL
  );
  `,
  // 7: reclaiming attachments. `readable` says whether the files are to be served (written with
  // the usage that decides it), `files_readable` what they were last made (after the commit), so
  // a sweep finds the attachments whose files are behind; `unused_since` (ms) is when the last
  // version holding the attachment let it go, or its upload. Existing attachments get the rule of
  // the content layer once: unused ones from now, those held by archived versions only unreadable.
  `
  ALTER TABLE attachments ADD COLUMN readable boolean NOT NULL DEFAULT true;
  ALTER TABLE attachments ADD COLUMN files_readable boolean NOT NULL DEFAULT true;
  ALTER TABLE attachments ADD COLUMN unused_since bigint;
  UPDATE attachments SET unused_since = (extract(epoch FROM clock_timestamp()) * 1000)::bigint
    WHERE NOT EXISTS (SELECT 1 FROM attachment_uses WHERE attachment_id = attachments.id);
  UPDATE attachments SET readable = false
    WHERE EXISTS (SELECT 1 FROM attachment_uses WHERE attachment_id = attachments.id)
    AND NOT EXISTS (SELECT 1 FROM attachment_uses WHERE attachment_id = attachments.id AND NOT archived);
  CREATE INDEX attachments_unused ON attachments (unused_since) WHERE unused_since IS NOT NULL;
  CREATE INDEX attachments_unsettled ON attachments (id) WHERE readable <> files_readable;
  `,
  // 8: writers side by side. A scope's generation is the sum of 16 counters (stripes), each
  // connection counting up the one its backend's pid picks, and the triggers run at commit
  // (deferred): a counter is a row every writer of the type updates, locked until the writer's
  // transaction ends, so one counter counted up at the first write would make the writers of one
  // type wait for each other. Each counter only grows and moves when its transaction commits, so
  // the sum does too, exactly when the write becomes visible. The old value stays in stripe 0.
  `
  ALTER TABLE generations ADD COLUMN stripe smallint NOT NULL DEFAULT 0;
  ALTER TABLE generations DROP CONSTRAINT generations_scope;
  ALTER TABLE generations ADD CONSTRAINT generations_scope_stripe PRIMARY KEY (scope, stripe);
  CREATE OR REPLACE FUNCTION count_up_generation(counted text) RETURNS void LANGUAGE sql AS $$
    INSERT INTO generations (scope, stripe, value) VALUES (counted, pg_backend_pid() % 16, 1)
      ON CONFLICT (scope, stripe) DO UPDATE SET value = generations.value + 1;
  $$;
  DROP TRIGGER documents_generation ON documents;
  DROP TRIGGER attachments_generation ON attachments;
  DROP TRIGGER attachment_uses_generation ON attachment_uses;
  CREATE CONSTRAINT TRIGGER documents_generation AFTER INSERT OR UPDATE OR DELETE ON documents
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION count_up_document_generation();
  CREATE CONSTRAINT TRIGGER attachments_generation AFTER INSERT OR UPDATE OR DELETE ON attachments
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION count_up_attachments_generation();
  CREATE CONSTRAINT TRIGGER attachment_uses_generation AFTER INSERT OR UPDATE OR DELETE ON attachment_uses
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION count_up_attachments_generation();
  `,
  // 9: the digests of the first-run setup codes the processes of this store made and logged, so
  // that each accepts every one (FirstRunSetup): servers on several machines each make their own.
  `
  CREATE TABLE setup_codes (
    digest text COLLATE "C" CONSTRAINT setup_codes_digest PRIMARY KEY
  );
  `,
  // 10: API keys made by `cms apikey create`, kept as SHA-256 digests. The digest is the primary
  // key: the server looks a presented key up by it on every request that carries one.
  `
  CREATE TABLE api_keys (
    digest text COLLATE "C" CONSTRAINT api_keys_digest PRIMARY KEY,
    id text COLLATE "C" NOT NULL CONSTRAINT api_keys_id UNIQUE,
    role text NOT NULL,
    label text NOT NULL,
    hint text NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    last_used_at text COLLATE "C"
  );
  `,
  // 11: the webhook outbox: one row per event and endpoint, written in the transaction of the
  // change. Writers of one document take turns (its lock), so its rows' ids follow commit order.
  // A pending row is sent when due, unleased, and no earlier pending row of its document and endpoint exists.
  `
  CREATE TABLE webhook_deliveries (
    id bigserial PRIMARY KEY,
    event_id text NOT NULL,
    endpoint text COLLATE "C" NOT NULL,
    doc_id text COLLATE "C" NOT NULL,
    event text NOT NULL,
    type text NOT NULL,
    payload text NOT NULL,
    status text NOT NULL DEFAULT 'pending',
    attempts integer NOT NULL DEFAULT 0,
    last_status_code integer,
    last_error text,
    next_attempt_at bigint NOT NULL,
    lease_until bigint NOT NULL DEFAULT 0,
    lease_token text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  );
  CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint, doc_id, id) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (updated_at) WHERE status <> 'pending';
  CREATE INDEX webhook_deliveries_status ON webhook_deliveries (status, endpoint, id);
  `,
  // 12: who uploaded an attachment (its caller id: `user:<id>` or `key:<digest>`), outside the
  // record's data so that no answer that shows the record shows it. Older uploads have none.
  `
  ALTER TABLE attachments ADD COLUMN uploaded_by text COLLATE "C";
  `,
  // 13: generation keys instead of scopes, and no key named by the schema: the documents'
  // trigger counts up their type still, while the attachment writes count up the key the
  // adapter is given (the content layer's), at the commit of each transaction that changed a
  // row of them (postgres-adapter.ts), as the deferred triggers did.
  `
  DROP TRIGGER attachments_generation ON attachments;
  DROP TRIGGER attachment_uses_generation ON attachment_uses;
  DROP FUNCTION count_up_attachments_generation();
  ALTER TABLE generations RENAME COLUMN scope TO key;
  ALTER TABLE generations RENAME CONSTRAINT generations_scope_stripe TO generations_key_stripe;
  CREATE OR REPLACE FUNCTION count_up_generation(counted text) RETURNS void LANGUAGE sql AS $$
    INSERT INTO generations (key, stripe, value) VALUES (counted, pg_backend_pid() % 16, 1)
      ON CONFLICT (key, stripe) DO UPDATE SET value = generations.value + 1;
  $$;
  `,
  // 14: editors' advisory locks, one per document version, outside the documents so that taking
  // or refreshing one writes no version and moves no generation (no cached answer is dropped).
  `
  CREATE TABLE advisory_locks (
    version_id text COLLATE "C" PRIMARY KEY,
    tab_id text NOT NULL,
    user_id text,
    username text,
    title text NOT NULL,
    refreshed_at bigint NOT NULL
  );
  `,
  // 15: a generation per type and mode besides the type's (`<type>:<mode>`, `<type>:` for a type
  // without modes; content/generation-keys.ts): a cached answer that shows published versions
  // stands while only drafts are saved. A version moved to another mode counts up both modes.
  // The new keys start at 0 (no rows), as every key written for the first time does.
  `
  CREATE OR REPLACE FUNCTION count_up_document_generation() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'DELETE' THEN
      PERFORM count_up_generation(OLD.type);
      PERFORM count_up_generation(OLD.type || ':' || OLD.mode);
    ELSE
      PERFORM count_up_generation(NEW.type);
      PERFORM count_up_generation(NEW.type || ':' || NEW.mode);
      IF TG_OP = 'UPDATE' AND OLD.mode IS DISTINCT FROM NEW.mode THEN PERFORM count_up_generation(OLD.type || ':' || OLD.mode); END IF;
    END IF;
    RETURN NULL;
  END;
  $$;
  `,
  // 16: the documents' reverse ids (relatedReverseIds), a row per id, in the order added (seq),
  // out of the data of the version they name: adding one is an indexed insert, not a rewrite of
  // the version with all the others. Its data keeps an empty array, which marks it as named
  // (rebuilt key by key: json keeps the key order, which jsonb would not).
  `
  CREATE TABLE document_reverse_ids (
    seq bigint GENERATED ALWAYS AS IDENTITY,
    target_id text COLLATE "C" NOT NULL,
    source_doc_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (target_id, source_doc_id)
  );
  INSERT INTO document_reverse_ids (target_id, source_doc_id)
    SELECT documents.id, ids.value FROM documents
    CROSS JOIN LATERAL json_array_elements(CASE WHEN json_typeof(documents.data -> 'relatedReverseIds') = 'array'
      THEN documents.data -> 'relatedReverseIds' ELSE '[]'::json END) WITH ORDINALITY AS elements (element, n)
    CROSS JOIN LATERAL (SELECT elements.element #>> '{}' AS value) AS ids
    WHERE json_typeof(elements.element) = 'string'
    ORDER BY documents.id, elements.n
    ON CONFLICT DO NOTHING;
  UPDATE documents SET data = (
      SELECT json_object_agg(entry.key, CASE WHEN entry.key = 'relatedReverseIds' THEN '[]'::json ELSE entry.value END ORDER BY entry.n)
      FROM json_each(documents.data) WITH ORDINALITY AS entry (key, value, n))
    WHERE CASE WHEN json_typeof(data -> 'relatedReverseIds') = 'array' THEN json_array_length(data -> 'relatedReverseIds') > 0 ELSE false END;
  `,
  // 17: a generation per document version
  // (StorageAdapter.generations' `versions`): a cached answer that shows one document stands
  // while other documents of its type are written. A row per version, removed with the version
  // (the table never outgrows the documents), counted by the deferred trigger too, at commit. Writers of one version take turns (its row), so one row
  // each, without stripes. Its value is drawn from a sequence: no value of a version ever comes
  // back, a version removed and made again (an unpublish, a publish) included; absent is 0.
  `
  CREATE SEQUENCE version_generation_values;
  CREATE TABLE version_generations (
    id text COLLATE "C" CONSTRAINT version_generations_id PRIMARY KEY,
    value bigint NOT NULL
  );
  INSERT INTO version_generations (id, value) SELECT id, nextval('version_generation_values') FROM documents;
  CREATE OR REPLACE FUNCTION count_up_document_generation() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'DELETE' THEN
      PERFORM count_up_generation(OLD.type);
      PERFORM count_up_generation(OLD.type || ':' || OLD.mode);
      DELETE FROM version_generations WHERE id = OLD.id;
    ELSE
      PERFORM count_up_generation(NEW.type);
      PERFORM count_up_generation(NEW.type || ':' || NEW.mode);
      IF TG_OP = 'UPDATE' AND OLD.mode IS DISTINCT FROM NEW.mode THEN PERFORM count_up_generation(OLD.type || ':' || OLD.mode); END IF;
      INSERT INTO version_generations (id, value) VALUES (NEW.id, nextval('version_generation_values'))
        ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value;
    END IF;
    RETURN NULL;
  END;
  $$;
  `,
  // 18: document history (history-migration.ts).
  historyMigration,
  // 19: scheduled publishing (migration-schedules.ts).
  schedulesMigration,
  // 20: the audit trail (audit-migration.ts).
  auditMigration,
  // 21: preview links that expire (migration-share-links.ts).
  shareLinksMigration,
  // 22: a scheduled publish refuses a draft changed by someone who may not publish it (migration-schedule-review.ts).
  scheduleReviewMigration,
  // 23: history pruned by pool: the first entry, publishes and each role's changes (history-migration.ts).
  historyPoolsMigration,
  // 24: the change log the change stream reads (change-log-migration.ts).
  changeLogMigration,
  // 25: who has which document open (presence-migration.ts).
  presenceMigration,
  // 26: each user's admin preferences (preferences-migration.ts).
  preferencesMigration,
  // 27: the records of writes sent with an Idempotency-Key (idempotency-migration.ts).
  idempotencyKeysMigration,
  // 28: the change log's visibility before a change and the sync tokens' key (change-log-migration.ts).
  changeLogSyncMigration,
  // 29: TOTP secrets and one-time account codes: recovery, password reset, TOTP setup (migration-account-security.ts).
  accountSecurityMigration,
  // 30: releases, drafts published together (migration-releases.ts).
  releasesMigration,
  // 33: review of drafts: comments and approve links (migration-review.ts).
  reviewMigration,
];

// Advisory lock keys (first half): one for migrations (the second half is the schema's name
// hashed, so stores in different schemas of one database do not wait for each other), one for
// documents, one for attachment records and one for slug bases (the second half is the schema
// and the id hashed; two ids with one hash merely wait for each other). 0x636d_7302 was the writers' lock.
export const migrationLockKey = 0x636d_7301;
export const documentLockKey = 0x636d_7303;
export const attachmentLockKey = 0x636d_7304;
export const slugLockKey = 0x636d_7305;
export const changeLogLockKey = 0x636d_7306;

/**
 * A statement that takes the advisory lock of each of the ids bound as $1 (text[]) under `key`,
 * until the transaction ends: in the order of their hashes, so that two transactions locking
 * several never wait for each other in a circle.
 */
export function lockStatement(key: number): string {
  return `SELECT pg_advisory_xact_lock(${key}, hashed) FROM (
    SELECT DISTINCT hashtext(coalesce(current_schema(), '') || '.' || id) AS hashed FROM unnest($1::text[]) AS id ORDER BY hashed
  ) AS locks`;
}

const schemaName = /^[a-z_][a-z0-9_]*$/;

/** Checks a schema name before it is used as an identifier; lowercase letters, digits and `_` only. */
export function assertSchemaName(schema: string): void {
  if (!schemaName.test(schema) || schema.length > 63) {
    throw new Error(`Invalid schema name "${schema}": use lowercase letters, digits and "_"`);
  }
}

/**
 * Applies the migrations the schema has not seen yet, all in one transaction under an advisory
 * lock: processes starting together wait for the first, then find nothing left to do. Creates
 * `schema` first when it is given and missing.
 */
export async function runMigrations(pool: Pool, schema: string | undefined): Promise<void> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query('BEGIN');
    try {
      // Waits for another process's migrations, however long they take.
      await client.query(untimed('SELECT pg_advisory_xact_lock($1::int, hashtext(coalesce($2::text, current_schema(), \'\')))', [
        migrationLockKey,
        schema ?? null,
      ]));
      if (schema !== undefined) {
        assertSchemaName(schema);
        const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1::text', [schema]);
        if (exists.rowCount === 0) await client.query(`CREATE SCHEMA "${schema}"`);
      }
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const { rows } = await client.query<{ version: number }>('SELECT coalesce(max(version), 0)::int AS version FROM schema_migrations');
      const current = rows[0]?.version ?? 0;
      if (current > migrations.length) {
        throw new Error(`The database schema is at version ${current}, newer than this server knows (${migrations.length})`);
      }
      for (let version = current; version < migrations.length; version++) {
        await client.query(untimed(migrations[version]!));
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1::int)', [version + 1]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        failure = rollbackError;
      });
      throw error;
    }
  } finally {
    client.release(failure);
  }
}
