import type { AttachmentRecord, AttachmentStore, StoredAttachment } from '../storage-adapter.js';
import type { StatementSource } from './statement-cache.js';
import { translateSqliteError } from './translate-error.js';

interface UseRow {
  attachment_id: string;
  doc_version_id: string;
  archived: number;
}

const findSql = 'SELECT data FROM attachments WHERE id IN (SELECT value FROM json_each(?))';
const findUsesSql = `SELECT attachment_id, doc_version_id, archived FROM attachment_uses
  WHERE attachment_id IN (SELECT value FROM json_each(?)) ORDER BY doc_version_id`;
const insertSql = 'INSERT INTO attachments (id, created_at, data) VALUES (@id, @createdAt, @data)';
const updateSql = 'UPDATE attachments SET created_at = @createdAt, data = @data WHERE id = @id';
const forgetUsesSql = 'DELETE FROM attachment_uses WHERE doc_version_id = ?';
// Selecting from attachments skips ids that have no record instead of failing on the foreign key.
const addUsesSql = `INSERT OR IGNORE INTO attachment_uses (doc_version_id, attachment_id, archived)
  SELECT @docVersionId, id, @archived FROM attachments WHERE id IN (SELECT value FROM json_each(@ids))`;

/** The attachments and attachment_uses tables, read and written through the given connection's statements. */
export function createSqliteAttachmentStore(statements: StatementSource): AttachmentStore {
  return {
    async find(ids) {
      if (ids.length === 0) return [];
      const list = JSON.stringify(ids);
      const records = (statements.statement(findSql).pluck().all(list) as string[]).map(
        (data) => JSON.parse(data) as AttachmentRecord,
      );
      const uses = statements.statement(findUsesSql).all(list) as UseRow[];
      return records.map((record) => withUses(record, uses));
    },

    async insert(record) {
      try {
        statements.statement(insertSql).run(toRow(record));
      } catch (error) {
        throw translateSqliteError(error);
      }
    },

    async update(record) {
      return statements.statement(updateSql).run(toRow(record)).changes > 0;
    },

    async setUsage(docVersionId, attachmentIds, archived) {
      statements.statement(forgetUsesSql).run(docVersionId);
      if (attachmentIds.length === 0) return;
      statements.statement(addUsesSql).run({ docVersionId, archived: archived ? 1 : 0, ids: JSON.stringify(attachmentIds) });
    },

    // One writer at a time: a transaction holds every record already.
    async lock() {},
  };
}

function toRow(record: AttachmentRecord) {
  return { id: record._id, createdAt: record.createdAt, data: JSON.stringify(record) };
}

function withUses(record: AttachmentRecord, uses: readonly UseRow[]): StoredAttachment {
  const mine = uses.filter((use) => use.attachment_id === record._id);
  return {
    ...record,
    docIds: mine.filter((use) => use.archived === 0).map((use) => use.doc_version_id),
    archivedDocIds: mine.filter((use) => use.archived !== 0).map((use) => use.doc_version_id),
  };
}
