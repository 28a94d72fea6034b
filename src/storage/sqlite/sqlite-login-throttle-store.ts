import type { LoginThrottleStore } from '../storage-adapter.js';
import type { StatementSource } from './statement-cache.js';

// The count after this failure: a period that is over starts again at one. SET expressions read
// the row as it was, in SQLite as in PostgreSQL, so each repeats it.
const count = '(CASE WHEN login_throttle.period_ends <= @now THEN 1 ELSE login_throttle.failures + 1 END)';
const recordFailureSql = `INSERT INTO login_throttle (key, failures, period_ends, locked_until)
  VALUES (@key, 1, @now + @period, CASE WHEN @limit <= 1 THEN @now + @period ELSE 0 END)
  ON CONFLICT (key) DO UPDATE SET
    failures = ${count},
    period_ends = CASE WHEN ${count} >= @limit OR login_throttle.period_ends <= @now THEN @now + @period
      ELSE login_throttle.period_ends END,
    locked_until = CASE WHEN ${count} >= @limit THEN @now + @period ELSE 0 END`;
const pruneSql = 'DELETE FROM login_throttle WHERE period_ends <= ?';
const lockedUntilSql = `SELECT max(locked_until) FROM login_throttle
  WHERE key IN (SELECT value FROM json_each(@keys)) AND locked_until > @now`;
const clearSql = 'DELETE FROM login_throttle WHERE key = ?';

/** The login_throttle table, read and written through the given connection's statements. */
export function createSqliteLoginThrottleStore(statements: StatementSource): LoginThrottleStore {
  return {
    async lockedUntil(keys, now) {
      const until = statements.statement(lockedUntilSql).pluck().get({ keys: JSON.stringify(keys), now }) as number | null;
      return until ?? null;
    },

    async recordFailures(failures, now) {
      statements.statement(pruneSql).run(now);
      for (const { key, limit, periodMs } of failures) {
        statements.statement(recordFailureSql).run({ key, now, period: periodMs, limit });
      }
    },

    async clear(key) {
      statements.statement(clearSql).run(key);
    },
  };
}
