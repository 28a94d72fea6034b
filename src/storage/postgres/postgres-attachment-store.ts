import type { AttachmentFileState, AttachmentRecord, AttachmentStore, AttachmentUploader, StoredAttachment } from '../interface/attachments.js';
import { attachmentLockKey, lockStatement } from './migrations.js';
import type { StatementSource } from './statements.js';
import { conflictError, translatingErrors } from './translate-error.js';
import { inIdOrder } from '../in-id-order.js';

interface FoundRow {
  data: AttachmentRecord;
  doc_ids: string[];
  archived_doc_ids: string[];
}

// The records with their usage, one row each: the versions holding them, sorted bytewise.
const findSql = `SELECT attachments.data,
    coalesce(array_agg(uses.doc_version_id ORDER BY uses.doc_version_id) FILTER (WHERE NOT uses.archived), '{}') AS doc_ids,
    coalesce(array_agg(uses.doc_version_id ORDER BY uses.doc_version_id) FILTER (WHERE uses.archived), '{}') AS archived_doc_ids
  FROM attachments LEFT JOIN attachment_uses AS uses ON uses.attachment_id = attachments.id
  WHERE attachments.id = ANY ($1::text[])
  GROUP BY attachments.id`;
// A new upload is unused until a version holds it: from its upload on, the grace period runs.
const insertSql = `INSERT INTO attachments (id, created_at, data, unused_since, uploaded_by)
  VALUES ($1::text, $2::text, $3::json, $4::bigint, $5::text) ON CONFLICT DO NOTHING`;
const uploadersSql = `SELECT id, uploaded_by AS "uploadedBy" FROM attachments WHERE id = ANY ($1::text[]) AND uploaded_by IS NOT NULL`;
const idsAfterSql = 'SELECT id FROM attachments WHERE id > $1::text ORDER BY id LIMIT $2::int';
const restoreSql = `INSERT INTO attachments (id, created_at, data, readable, files_readable, unused_since, uploaded_by)
  VALUES ($1::text, $2::text, $3::json, $4::boolean, $4::boolean, $5::bigint, $6::text) ON CONFLICT DO NOTHING`;
const restoreUsesSql = `INSERT INTO attachment_uses (doc_version_id, attachment_id, archived)
  SELECT version, $1::text, $3::boolean FROM unnest($2::text[]) AS version`;
const updateSql = 'UPDATE attachments SET created_at = $2::text, data = $3::json WHERE id = $1::text';
// One statement: the uses the version no longer has go, the others are added or updated (a
// statement cannot delete and re-add one row), and the ids of those that changed come back.
// Selecting from attachments skips ids that have no record instead of failing on the foreign
// key, and repeats.
const setUsageSql = `WITH wanted AS (
    SELECT id FROM attachments WHERE id = ANY ($2::text[])
  ), removed AS (
    DELETE FROM attachment_uses
    WHERE doc_version_id = $1::text AND attachment_id NOT IN (SELECT id FROM wanted)
    RETURNING attachment_id
  ), held AS (
    INSERT INTO attachment_uses (doc_version_id, attachment_id, archived)
    SELECT $1::text, id, $3::boolean FROM wanted
    ON CONFLICT (doc_version_id, attachment_id) DO UPDATE SET archived = excluded.archived
    WHERE attachment_uses.archived <> excluded.archived
    RETURNING attachment_id
  )
  SELECT attachment_id FROM removed UNION SELECT attachment_id FROM held`;
const unusedSinceSql = `UPDATE attachments SET unused_since = CASE
    WHEN EXISTS (SELECT 1 FROM attachment_uses WHERE attachment_id = attachments.id) THEN NULL
    ELSE coalesce(unused_since, $2::bigint) END
  WHERE id = ANY ($1::text[])`;
const setReadableSql = `UPDATE attachments SET readable = $2::boolean
  WHERE id = ANY ($1::text[]) AND readable <> $2::boolean RETURNING id`;
const fileStatesSql = 'SELECT id, readable, files_readable FROM attachments WHERE id = ANY ($1::text[])';
const unsettledSql = 'SELECT id, readable, files_readable FROM attachments WHERE readable <> files_readable LIMIT $1::int';
const markFilesSql = 'UPDATE attachments SET files_readable = $2::boolean WHERE id = $1::text AND files_readable <> $2::boolean';
const findUnusedSql = `SELECT id FROM attachments WHERE unused_since IS NOT NULL AND unused_since < $1::bigint
  ORDER BY unused_since LIMIT $2::int`;
const removeUnusedSql = `DELETE FROM attachments WHERE id = $1::text AND unused_since IS NOT NULL AND unused_since < $2::bigint
  AND NOT EXISTS (SELECT 1 FROM attachment_uses WHERE attachment_id = $1::text)`;

interface FileStateRow {
  id: string;
  readable: boolean;
  files_readable: boolean;
}
const lockSql = lockStatement(attachmentLockKey);

/** Holds the attachment records `ids` until the transaction ends (`TransactionOptions.lockAttachments`). */
export async function holdAttachments(statements: StatementSource, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await statements.prepared(lockSql, [[...ids]]);
}

/**
 * The attachments and attachment_uses tables, read and written through the given statements.
 * `changed` is called in the transaction of every write that changed a row of them (the
 * adapter counts up the generation key of attachment writes at commit).
 */
export function createPostgresAttachmentStore(statements: StatementSource, changed: () => void): AttachmentStore {
  const changing = (rowsChanged: boolean) => {
    if (rowsChanged) changed();
    return rowsChanged;
  };
  const store: AttachmentStore = {
    async find(ids) {
      if (ids.length === 0) return [];
      const { rows } = await statements.prepared<FoundRow>(findSql, [[...ids]]);
      return rows.map((row): StoredAttachment => ({ ...row.data, docIds: row.doc_ids, archivedDocIds: row.archived_doc_ids }));
    },

    async insert(record, uploadedBy) {
      const inserted = await translatingErrors(() => statements.prepared(insertSql, [...toRow(record), Date.now(), uploadedBy ?? null]));
      if (inserted.rowCount === 0) throw conflictError('attachments_id');
      changed();
    },

    async uploaders(ids) {
      if (ids.length === 0) return [];
      const { rows } = await statements.prepared<AttachmentUploader>(uploadersSql, [[...ids]]);
      return rows;
    },

    async attachmentsAfter(afterId, limit) {
      const { rows } = await statements.prepared<{ id: string }>(idsAfterSql, [afterId ?? '', limit]);
      return inIdOrder(await store.find(rows.map((row) => row.id)));
    },

    async restore(attachment, readable, uploadedBy) {
      const { docIds, archivedDocIds, ...record } = attachment;
      const unused = docIds.length === 0 && archivedDocIds.length === 0;
      const row = [...toRow(record), readable, unused ? Date.now() : null, uploadedBy ?? null];
      const inserted = await translatingErrors(() => statements.prepared(restoreSql, row));
      if (inserted.rowCount === 0) throw conflictError('attachments_id');
      for (const [versions, archived] of [[docIds, false], [archivedDocIds, true]] as const) {
        if (versions.length > 0) await statements.prepared(restoreUsesSql, [record._id, [...versions], archived]);
      }
      changed();
    },

    async update(record) {
      const updated = await statements.prepared(updateSql, toRow(record));
      return changing((updated.rowCount ?? 0) > 0);
    },

    async setUsage(docVersionId, attachmentIds, archived) {
      const { rows } = await statements.prepared<{ attachment_id: string }>(setUsageSql, [docVersionId, [...attachmentIds], archived]);
      const changes = rows.map((row) => row.attachment_id);
      if (changes.length > 0) await statements.prepared(unusedSinceSql, [changes, Date.now()]);
      changing(changes.length > 0);
      return changes;
    },

    async setReadable(ids, readable) {
      if (ids.length === 0) return [];
      const { rows } = await statements.prepared<{ id: string }>(setReadableSql, [[...ids], readable]);
      changing(rows.length > 0);
      return rows.map((row) => row.id);
    },

    async fileStates(ids) {
      if (ids.length === 0) return [];
      const { rows } = await statements.prepared<FileStateRow>(fileStatesSql, [[...ids]]);
      return rows.map(toFileState);
    },

    async unsettledFiles(limit) {
      const { rows } = await statements.prepared<FileStateRow>(unsettledSql, [limit]);
      return rows.map(toFileState);
    },

    async markFiles(id, readable) {
      const marked = await statements.prepared(markFilesSql, [id, readable]);
      changing((marked.rowCount ?? 0) > 0);
    },

    async findUnused(before, limit) {
      const { rows } = await statements.prepared<{ id: string }>(findUnusedSql, [before, limit]);
      return store.find(rows.map((row) => row.id));
    },

    async removeUnused(id, before) {
      const removed = await statements.prepared(removeUnusedSql, [id, before]);
      return changing((removed.rowCount ?? 0) > 0);
    },

    async findHeld(ids) {
      await holdAttachments(statements, ids);
      return store.find(ids);
    },
  };
  return store;
}

function toFileState(row: FileStateRow): AttachmentFileState {
  return { id: row.id, readable: row.readable, filesReadable: row.files_readable };
}

function toRow(record: AttachmentRecord): unknown[] {
  return [record._id, record.createdAt, JSON.stringify(record)];
}
