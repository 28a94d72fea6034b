import type { LoginThrottleStore, ThrottleKey } from '../storage-adapter.js';
import { takeEach, type ThrottleStatements } from '../throttle-take.js';
import type { StatementSource } from './statement-cache.js';

// The count after this attempt: a period that is over starts again at one. SET expressions read
// the row as it was, in SQLite as in PostgreSQL, so each repeats it. A locked key's row is left
// as it is (the WHERE), and then no row is returned.
const count = '(CASE WHEN login_throttle.period_ends <= @now THEN 1 ELSE login_throttle.failures + 1 END)';
const takeSql = `INSERT INTO login_throttle (key, failures, period_ends, locked_until)
  VALUES (@key, 1, @now + @period, CASE WHEN @limit <= 1 THEN @now + @period ELSE 0 END)
  ON CONFLICT (key) DO UPDATE SET
    failures = ${count},
    period_ends = CASE WHEN ${count} >= @limit OR login_throttle.period_ends <= @now THEN @now + @period
      ELSE login_throttle.period_ends END,
    locked_until = CASE WHEN ${count} >= @limit THEN @now + @period ELSE 0 END
  WHERE login_throttle.locked_until <= @now
  RETURNING 1`;
const giveBackSql = `UPDATE login_throttle SET failures = failures - 1,
    locked_until = CASE WHEN failures - 1 < @limit THEN 0 ELSE locked_until END
  WHERE key = @key AND failures > 0 AND period_ends > @now`;
const pruneSql = 'DELETE FROM login_throttle WHERE period_ends <= ?';
const lockedUntilSql = `SELECT max(locked_until) FROM login_throttle
  WHERE key IN (SELECT value FROM json_each(@keys)) AND locked_until > @now`;
const clearSql = 'DELETE FROM login_throttle WHERE key = ?';

/** The login_throttle table, read and written through the given connection's statements. */
export function createSqliteLoginThrottleStore(statements: StatementSource): LoginThrottleStore {
  const giveBack = async ({ key, limit }: ThrottleKey, now: number) => {
    statements.statement(giveBackSql).run({ key, limit, now });
  };
  const lockedUntil = async (keys: readonly string[], now: number) => {
    const until = statements.statement(lockedUntilSql).pluck().get({ keys: JSON.stringify(keys), now }) as number | null;
    return until ?? null;
  };
  const each: ThrottleStatements = {
    takeOne: async ({ key, limit, periodMs }, now) => statements.statement(takeSql).get({ key, now, period: periodMs, limit }) !== undefined,
    giveBack,
    lockedUntil,
  };
  return {
    lockedUntil,

    async take(keys, now) {
      statements.statement(pruneSql).run(now);
      return takeEach(each, keys, now);
    },

    giveBack,

    async clear(key) {
      statements.statement(clearSql).run(key);
    },
  };
}
