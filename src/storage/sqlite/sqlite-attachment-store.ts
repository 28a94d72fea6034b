import type { AttachmentFileState, AttachmentRecord, AttachmentStore, AttachmentUploader, StoredAttachment } from '../interface/attachments.js';
import type { StatementSource } from './statement-cache.js';
import { translateSqliteError } from './translate-error.js';
import { inIdOrder } from '../in-id-order.js';

interface UseRow {
  attachment_id: string;
  doc_version_id: string;
  archived: number;
}

interface FileStateRow {
  id: string;
  readable: number;
  files_readable: number;
}

const findSql = 'SELECT data FROM attachments WHERE id IN (SELECT value FROM json_each(?))';
const findUsesSql = `SELECT attachment_id, doc_version_id, archived FROM attachment_uses
  WHERE attachment_id IN (SELECT value FROM json_each(?)) ORDER BY doc_version_id`;
// A new upload is unused until a version holds it: from its upload on, the grace period runs.
const insertSql = `INSERT INTO attachments (id, created_at, data, unused_since, uploaded_by)
  VALUES (@id, @createdAt, @data, @now, @uploadedBy)`;
const uploadersSql = `SELECT id, uploaded_by AS uploadedBy FROM attachments
  WHERE id IN (SELECT value FROM json_each(?)) AND uploaded_by IS NOT NULL`;
const idsAfterSql = 'SELECT id FROM attachments WHERE id > ? ORDER BY id LIMIT ?';
const restoreSql = `INSERT INTO attachments (id, created_at, data, readable, files_readable, unused_since, uploaded_by)
  VALUES (@id, @createdAt, @data, @readable, @readable, @unusedSince, @uploadedBy)`;
const restoreUsesSql = `INSERT INTO attachment_uses (doc_version_id, attachment_id, archived)
  SELECT value, @id, @archived FROM json_each(@versions)`;
const updateSql = 'UPDATE attachments SET created_at = @createdAt, data = @data WHERE id = @id';
const versionUsesSql = 'SELECT attachment_id, archived FROM attachment_uses WHERE doc_version_id = ?';
const existingSql = 'SELECT id FROM attachments WHERE id IN (SELECT value FROM json_each(?))';
const forgetUsesSql = 'DELETE FROM attachment_uses WHERE doc_version_id = @docVersionId AND attachment_id IN (SELECT value FROM json_each(@ids))';
// `WHERE true` tells SQLite's parser that ON CONFLICT belongs to the INSERT, not to a join.
const putUsesSql = `INSERT INTO attachment_uses (doc_version_id, attachment_id, archived)
  SELECT @docVersionId, value, @archived FROM json_each(@ids) WHERE true
  ON CONFLICT (doc_version_id, attachment_id) DO UPDATE SET archived = excluded.archived`;
const unusedSinceSql = `UPDATE attachments SET unused_since = CASE
    WHEN EXISTS (SELECT 1 FROM attachment_uses WHERE attachment_id = attachments.id) THEN NULL
    ELSE coalesce(unused_since, @now) END
  WHERE id IN (SELECT value FROM json_each(@ids))`;
const setReadableSql = `UPDATE attachments SET readable = @readable
  WHERE id IN (SELECT value FROM json_each(@ids)) AND readable <> @readable RETURNING id`;
const fileStatesSql = 'SELECT id, readable, files_readable FROM attachments WHERE id IN (SELECT value FROM json_each(?))';
const unsettledSql = 'SELECT id, readable, files_readable FROM attachments WHERE readable <> files_readable LIMIT ?';
const markFilesSql = 'UPDATE attachments SET files_readable = ? WHERE id = ? AND files_readable <> ?';
const findUnusedSql = 'SELECT id FROM attachments WHERE unused_since IS NOT NULL AND unused_since < ? ORDER BY unused_since LIMIT ?';
const removeUnusedSql = `DELETE FROM attachments WHERE id = @id AND unused_since IS NOT NULL AND unused_since < @before
  AND NOT EXISTS (SELECT 1 FROM attachment_uses WHERE attachment_id = @id)`;

/**
 * The attachments and attachment_uses tables, read and written through the given connection's
 * statements. `changed` is called in the transaction of every write that changed a row of them
 * (the adapter counts up the generation key of attachment writes).
 */
export function createSqliteAttachmentStore(statements: StatementSource, changed: () => void): AttachmentStore {
  const changing = (rowsChanged: boolean) => {
    if (rowsChanged) changed();
    return rowsChanged;
  };
  const store: AttachmentStore = {
    async find(ids) {
      if (ids.length === 0) return [];
      const list = JSON.stringify(ids);
      const records = (statements.statement(findSql).pluck().all(list) as string[]).map(
        (data) => JSON.parse(data) as AttachmentRecord,
      );
      const uses = statements.statement(findUsesSql).all(list) as UseRow[];
      return records.map((record) => withUses(record, uses));
    },

    async insert(record, uploadedBy) {
      try {
        statements.statement(insertSql).run({ ...toRow(record), now: Date.now(), uploadedBy: uploadedBy ?? null });
      } catch (error) {
        throw translateSqliteError(error);
      }
      changed();
    },

    async uploaders(ids) {
      if (ids.length === 0) return [];
      return statements.statement(uploadersSql).all(JSON.stringify(ids)) as AttachmentUploader[];
    },

    async attachmentsAfter(afterId, limit) {
      const ids = statements.statement(idsAfterSql).pluck().all(afterId ?? '', limit) as string[];
      return inIdOrder(await store.find(ids));
    },

    async restore(attachment, readable, uploadedBy) {
      const { docIds, archivedDocIds, ...record } = attachment;
      const unused = docIds.length === 0 && archivedDocIds.length === 0;
      try {
        const unusedSince = unused ? Date.now() : null;
        statements.statement(restoreSql).run({ ...toRow(record), readable: readable ? 1 : 0, unusedSince, uploadedBy: uploadedBy ?? null });
      } catch (error) {
        throw translateSqliteError(error);
      }
      for (const [versions, archived] of [[docIds, 0], [archivedDocIds, 1]] as const) {
        if (versions.length > 0) statements.statement(restoreUsesSql).run({ id: record._id, archived, versions: JSON.stringify(versions) });
      }
      changed();
    },

    async update(record) {
      return changing(statements.statement(updateSql).run(toRow(record)).changes > 0);
    },

    async setUsage(docVersionId, attachmentIds, archived) {
      const previous = new Map(
        (statements.statement(versionUsesSql).all(docVersionId) as UseRow[]).map((use) => [use.attachment_id, use.archived !== 0]),
      );
      // Ids without a record are skipped instead of failing on the foreign key.
      const wanted = attachmentIds.length === 0 ? [] : (statements.statement(existingSql).pluck().all(JSON.stringify(attachmentIds)) as string[]);
      const wantedSet = new Set(wanted);
      const released = [...previous.keys()].filter((id) => !wantedSet.has(id));
      const held = wanted.filter((id) => previous.get(id) !== archived);
      if (released.length > 0) statements.statement(forgetUsesSql).run({ docVersionId, ids: JSON.stringify(released) });
      if (held.length > 0) statements.statement(putUsesSql).run({ docVersionId, archived: archived ? 1 : 0, ids: JSON.stringify(held) });
      const changes = [...released, ...held];
      if (changes.length > 0) statements.statement(unusedSinceSql).run({ ids: JSON.stringify(changes), now: Date.now() });
      changing(changes.length > 0);
      return changes;
    },

    async setReadable(ids, readable) {
      if (ids.length === 0) return [];
      const changes = statements.statement(setReadableSql).pluck().all({ ids: JSON.stringify(ids), readable: readable ? 1 : 0 }) as string[];
      changing(changes.length > 0);
      return changes;
    },

    async fileStates(ids) {
      if (ids.length === 0) return [];
      return (statements.statement(fileStatesSql).all(JSON.stringify(ids)) as FileStateRow[]).map(toFileState);
    },

    async unsettledFiles(limit) {
      return (statements.statement(unsettledSql).all(limit) as FileStateRow[]).map(toFileState);
    },

    async markFiles(id, readable) {
      const value = readable ? 1 : 0;
      changing(statements.statement(markFilesSql).run(value, id, value).changes > 0);
    },

    async findUnused(before, limit) {
      const ids = statements.statement(findUnusedSql).pluck().all(before, limit) as string[];
      return store.find(ids);
    },

    async removeUnused(id, before) {
      return changing(statements.statement(removeUnusedSql).run({ id, before }).changes > 0);
    },

    // One writer at a time: a transaction holds every record already.
    findHeld: (ids) => store.find(ids),
  };
  return store;
}

function toRow(record: AttachmentRecord) {
  return { id: record._id, createdAt: record.createdAt, data: JSON.stringify(record) };
}

function toFileState(row: FileStateRow): AttachmentFileState {
  return { id: row.id, readable: row.readable !== 0, filesReadable: row.files_readable !== 0 };
}

function withUses(record: AttachmentRecord, uses: readonly UseRow[]): StoredAttachment {
  const mine = uses.filter((use) => use.attachment_id === record._id);
  return {
    ...record,
    docIds: mine.filter((use) => use.archived === 0).map((use) => use.doc_version_id),
    archivedDocIds: mine.filter((use) => use.archived !== 0).map((use) => use.doc_version_id),
  };
}
