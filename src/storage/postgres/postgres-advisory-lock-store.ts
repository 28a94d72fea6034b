import type { AdvisoryLockStore } from '../interface/advisory-locks.js';
import type { StatementSource } from './statements.js';
import { advisoryLockColumns, advisoryLockOf, advisoryLockUpsert, advisoryLockValues, type AdvisoryLockRow } from '../advisory-lock-rows.js';

const getSql = `SELECT ${advisoryLockColumns} FROM advisory_locks WHERE version_id = $1::text`;
const putSql = `INSERT INTO advisory_locks (${advisoryLockColumns})
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::bigint) ${advisoryLockUpsert}`;
const releaseSql = 'DELETE FROM advisory_locks WHERE version_id = $1::text AND tab_id = $2::text';
const removeAllSql = 'DELETE FROM advisory_locks WHERE version_id = ANY($1::text[])';

/** The advisory_locks table, read and written through the given statements. */
export function createPostgresAdvisoryLockStore(statements: StatementSource): AdvisoryLockStore {
  return {
    async get(versionId) {
      const { rows } = await statements.prepared<AdvisoryLockRow>(getSql, [versionId]);
      return rows[0] ? advisoryLockOf(rows[0]) : null;
    },

    async put(lock) {
      await statements.prepared(putSql, advisoryLockValues(lock));
    },

    async release(versionId, tabId) {
      await statements.prepared(releaseSql, [versionId, tabId]);
    },

    async removeAll(versionIds) {
      if (versionIds.length > 0) await statements.prepared(removeAllSql, [versionIds]);
    },
  };
}
