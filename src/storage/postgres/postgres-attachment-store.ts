import type { AttachmentRecord, AttachmentStore, StoredAttachment } from '../storage-adapter.js';
import { attachmentLockKey, lockStatement } from './migrations.js';
import type { StatementSource } from './statements.js';
import { conflictError, translatingErrors } from './translate-error.js';

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
const insertSql = `INSERT INTO attachments (id, created_at, data) VALUES ($1::text, $2::text, $3::json)
  ON CONFLICT DO NOTHING`;
const updateSql = 'UPDATE attachments SET created_at = $2::text, data = $3::json WHERE id = $1::text';
// One statement: the uses the version no longer has go, the others are added or updated (a
// statement cannot delete and re-add one row). Selecting from attachments skips ids that have
// no record instead of failing on the foreign key, and repeats.
const setUsageSql = `WITH wanted AS (
    SELECT id FROM attachments WHERE id = ANY ($2::text[])
  ), removed AS (
    DELETE FROM attachment_uses
    WHERE doc_version_id = $1::text AND attachment_id NOT IN (SELECT id FROM wanted)
  )
  INSERT INTO attachment_uses (doc_version_id, attachment_id, archived)
  SELECT $1::text, id, $3::boolean FROM wanted
  ON CONFLICT (doc_version_id, attachment_id) DO UPDATE SET archived = excluded.archived`;
const lockSql = lockStatement(attachmentLockKey);

/** The attachments and attachment_uses tables, read and written through the given statements. */
export function createPostgresAttachmentStore(statements: StatementSource): AttachmentStore {
  return {
    async find(ids) {
      if (ids.length === 0) return [];
      const { rows } = await statements.prepared<FoundRow>(findSql, [[...ids]]);
      return rows.map((row): StoredAttachment => ({ ...row.data, docIds: row.doc_ids, archivedDocIds: row.archived_doc_ids }));
    },

    async insert(record) {
      const inserted = await translatingErrors(() => statements.prepared(insertSql, toRow(record)));
      if (inserted.rowCount === 0) throw conflictError('attachments_id');
    },

    async update(record) {
      const updated = await statements.prepared(updateSql, toRow(record));
      return (updated.rowCount ?? 0) > 0;
    },

    async setUsage(docVersionId, attachmentIds, archived) {
      await statements.prepared(setUsageSql, [docVersionId, [...attachmentIds], archived]);
    },

    async lock(ids) {
      if (ids.length > 0) await statements.prepared(lockSql, [[...ids]]);
    },
  };
}

function toRow(record: AttachmentRecord): unknown[] {
  return [record._id, record.createdAt, JSON.stringify(record)];
}
