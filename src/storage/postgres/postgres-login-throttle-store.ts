import type { LoginThrottleStore } from '../storage-adapter.js';
import type { StatementSource } from './statements.js';

// The count after this failure: a period that is over starts again at one. SET expressions read
// the row as it was, so each repeats it. The upsert locks the row: concurrent failures of one
// key are counted one after the other.
const count = '(CASE WHEN t.period_ends <= $2::bigint THEN 1 ELSE t.failures + 1 END)';
const recordFailureSql = `INSERT INTO login_throttle AS t (key, failures, period_ends, locked_until)
  VALUES ($1::text, 1, $2::bigint + $3::bigint, CASE WHEN $4::int <= 1 THEN $2::bigint + $3::bigint ELSE 0 END)
  ON CONFLICT (key) DO UPDATE SET
    failures = ${count},
    period_ends = CASE WHEN ${count} >= $4::int OR t.period_ends <= $2::bigint THEN $2::bigint + $3::bigint
      ELSE t.period_ends END,
    locked_until = CASE WHEN ${count} >= $4::int THEN $2::bigint + $3::bigint ELSE 0 END`;
const pruneSql = 'DELETE FROM login_throttle WHERE period_ends <= $1::bigint';
const lockedUntilSql = `SELECT max(locked_until) AS until FROM login_throttle
  WHERE key = ANY($1::text[]) AND locked_until > $2::bigint`;
const clearSql = 'DELETE FROM login_throttle WHERE key = $1::text';

/** The login_throttle table, read and written through the given statements. */
export function createPostgresLoginThrottleStore(statements: StatementSource): LoginThrottleStore {
  return {
    async lockedUntil(keys, now) {
      const { rows } = await statements.prepared<{ until: string | null }>(lockedUntilSql, [keys, now]);
      // bigint arrives as a string: pg does not guess whether it fits a number.
      const until = rows[0]?.until;
      return until === null || until === undefined ? null : Number(until);
    },

    async recordFailures(failures, now) {
      await statements.prepared(pruneSql, [now]);
      for (const { key, limit, periodMs } of failures) {
        await statements.prepared(recordFailureSql, [key, now, periodMs, limit]);
      }
    },

    async clear(key) {
      await statements.prepared(clearSql, [key]);
    },
  };
}
