import type { LoginThrottleStore, ThrottleKey } from '../storage-adapter.js';
import { takeEach, type ThrottleStatements } from '../throttle-take.js';
import type { StatementSource } from './statements.js';

// The count after this attempt: a period that is over starts again at one. SET expressions read
// the row as it was, so each repeats it. The upsert locks the row, so attempts on one key are
// counted one after the other; a locked key's row is left as it is (the WHERE), and then no
// row is returned.
const count = '(CASE WHEN t.period_ends <= $2::bigint THEN 1 ELSE t.failures + 1 END)';
const takeSql = `INSERT INTO login_throttle AS t (key, failures, period_ends, locked_until)
  VALUES ($1::text, 1, $2::bigint + $3::bigint, CASE WHEN $4::int <= 1 THEN $2::bigint + $3::bigint ELSE 0 END)
  ON CONFLICT (key) DO UPDATE SET
    failures = ${count},
    period_ends = CASE WHEN ${count} >= $4::int OR t.period_ends <= $2::bigint THEN $2::bigint + $3::bigint
      ELSE t.period_ends END,
    locked_until = CASE WHEN ${count} >= $4::int THEN $2::bigint + $3::bigint ELSE 0 END
  WHERE t.locked_until <= $2::bigint
  RETURNING 1`;
const giveBackSql = `UPDATE login_throttle SET failures = failures - 1,
    locked_until = CASE WHEN failures - 1 < $2::int THEN 0 ELSE locked_until END
  WHERE key = $1::text AND failures > 0 AND period_ends > $3::bigint`;
const pruneSql = 'DELETE FROM login_throttle WHERE period_ends <= $1::bigint';
const lockedUntilSql = `SELECT max(locked_until) AS until FROM login_throttle
  WHERE key = ANY($1::text[]) AND locked_until > $2::bigint`;
const clearSql = 'DELETE FROM login_throttle WHERE key = $1::text';

/** The login_throttle table, read and written through the given statements. */
export function createPostgresLoginThrottleStore(statements: StatementSource): LoginThrottleStore {
  const giveBack = async ({ key, limit }: ThrottleKey, now: number) => {
    await statements.prepared(giveBackSql, [key, limit, now]);
  };
  const lockedUntil = async (keys: readonly string[], now: number) => {
    const { rows } = await statements.prepared<{ until: string | null }>(lockedUntilSql, [keys, now]);
    // bigint arrives as a string: pg does not guess whether it fits a number.
    const until = rows[0]?.until;
    return until === null || until === undefined ? null : Number(until);
  };
  const each: ThrottleStatements = {
    takeOne: async ({ key, limit, periodMs }, now) => (await statements.prepared(takeSql, [key, now, periodMs, limit])).rows.length === 1,
    giveBack,
    lockedUntil,
  };
  return {
    lockedUntil,

    async take(keys, now) {
      await statements.prepared(pruneSql, [now]);
      return takeEach(each, keys, now);
    },

    giveBack,

    async clear(key) {
      await statements.prepared(clearSql, [key]);
    },
  };
}
