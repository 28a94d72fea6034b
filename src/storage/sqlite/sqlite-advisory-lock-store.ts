import type { AdvisoryLockStore } from '../interface/advisory-locks.js';
import type { StatementSource } from './statement-cache.js';
import { advisoryLockColumns, advisoryLockOf, advisoryLockUpsert, advisoryLockValues, type AdvisoryLockRow } from '../advisory-lock-rows.js';

const getSql = `SELECT ${advisoryLockColumns} FROM advisory_locks WHERE version_id = ?`;
const putSql = `INSERT INTO advisory_locks (${advisoryLockColumns}) VALUES (?, ?, ?, ?, ?, ?) ${advisoryLockUpsert}`;
const releaseSql = 'DELETE FROM advisory_locks WHERE version_id = ? AND tab_id = ?';
const removeAllSql = 'DELETE FROM advisory_locks WHERE version_id IN (SELECT value FROM json_each(?))';

/** The advisory_locks table, read and written through the given connection's statements. */
export function createSqliteAdvisoryLockStore(statements: StatementSource): AdvisoryLockStore {
  return {
    async get(versionId) {
      const row = statements.statement(getSql).get(versionId) as AdvisoryLockRow | undefined;
      return row ? advisoryLockOf(row) : null;
    },

    async put(lock) {
      statements.statement(putSql).run(...advisoryLockValues(lock));
    },

    async release(versionId, tabId) {
      statements.statement(releaseSql).run(versionId, tabId);
    },

    async removeAll(versionIds) {
      if (versionIds.length > 0) statements.statement(removeAllSql).run(JSON.stringify(versionIds));
    },
  };
}
