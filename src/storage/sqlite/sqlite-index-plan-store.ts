import type { IndexPlanStore } from '../interface/index-plans.js';
import type { StatementSource } from './statement-cache.js';

const digestOfSql = 'SELECT digest FROM index_plans WHERE type = ?';
const recordSql = 'INSERT INTO index_plans (type, digest) VALUES (?, ?) ON CONFLICT (type) DO UPDATE SET digest = excluded.digest';

/** The index_plans table, read and written through the given connection's statements. */
export function createSqliteIndexPlanStore(statements: StatementSource): IndexPlanStore {
  return {
    async digestOf(type) {
      return (statements.statement(digestOfSql).pluck().get(type) as string | undefined) ?? null;
    },

    async record(type, digest) {
      statements.statement(recordSql).run(type, digest);
    },
  };
}
