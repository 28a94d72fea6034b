import type { SetupCodeStore } from '../interface/setup-codes.js';
import type { StatementSource } from './statements.js';

const addSql = 'INSERT INTO setup_codes (digest) VALUES ($1::text) ON CONFLICT DO NOTHING';
const anySql = 'SELECT EXISTS (SELECT 1 FROM setup_codes) AS kept';
const takeSql = 'DELETE FROM setup_codes WHERE digest = $1::text';

/** The setup_codes table, read and written through the given statements. */
export function createPostgresSetupCodeStore(statements: StatementSource): SetupCodeStore {
  return {
    async add(digest) {
      await statements.prepared(addSql, [digest]);
    },

    async any() {
      const { rows } = await statements.prepared<{ kept: boolean }>(anySql, []);
      return rows[0]!.kept;
    },

    async take(digest) {
      const removed = await statements.prepared(takeSql, [digest]);
      return removed.rowCount === 1;
    },
  };
}
