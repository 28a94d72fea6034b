import type { SetupCodeStore } from '../interface/setup-codes.js';
import type { StatementSource } from './statement-cache.js';

const addSql = 'INSERT OR IGNORE INTO setup_codes (digest) VALUES (?)';
const anySql = 'SELECT EXISTS (SELECT 1 FROM setup_codes)';
const takeSql = 'DELETE FROM setup_codes WHERE digest = ?';

/** The setup_codes table, read and written through the given connection's statements. */
export function createSqliteSetupCodeStore(statements: StatementSource): SetupCodeStore {
  return {
    async add(digest) {
      statements.statement(addSql).run(digest);
    },

    async any() {
      return statements.statement(anySql).pluck().get() === 1;
    },

    async take(digest) {
      return statements.statement(takeSql).run(digest).changes === 1;
    },
  };
}
