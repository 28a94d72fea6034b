import type { IndexPlanStore } from '../interface/index-plans.js';
import type { StatementSource } from './statements.js';

const digestOfSql = 'SELECT digest FROM index_plans WHERE type = $1::text';
const recordSql = `INSERT INTO index_plans (type, digest) VALUES ($1::text, $2::text)
  ON CONFLICT (type) DO UPDATE SET digest = excluded.digest`;

/** The index_plans table, read and written through the given statements. */
export function createPostgresIndexPlanStore(statements: StatementSource): IndexPlanStore {
  return {
    async digestOf(type) {
      const { rows } = await statements.prepared<{ digest: string }>(digestOfSql, [type]);
      return rows[0]?.digest ?? null;
    },

    async record(type, digest) {
      await statements.prepared(recordSql, [type, digest]);
    },
  };
}
