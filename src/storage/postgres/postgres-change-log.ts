import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { ChangeEntry, ChangeLogStore } from '../storage-adapter.js';
import { changeLogColumns, changeLogInsertColumns, changeLogRowValues, loggedChangeOf, type ChangeLogRow } from '../change-log-rows.js';
import { changeLogLockKey } from './migrations.js';
import type { StatementSource } from './statements.js';

const afterSql = `SELECT ${changeLogColumns} FROM change_log WHERE seq > $1::bigint ORDER BY seq LIMIT $2::int`;
// The last committed seq; once every row is pruned, the sequence's (is_called: one was ever given).
const boundsSql = `SELECT (SELECT min(seq) FROM change_log) AS oldest, coalesce((SELECT max(seq) FROM change_log),
  (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM change_log_seq_seq)) AS latest`;
// Deletes and raises the watermark in one statement: the watermark is the greatest seq removed.
const pruneSql = `WITH gone AS (DELETE FROM change_log WHERE seq IN (SELECT seq FROM change_log WHERE at < $1::text ORDER BY at LIMIT $2::int) RETURNING seq)
  UPDATE change_log_pruned SET seq = greatest(change_log_pruned.seq, coalesce((SELECT max(seq) FROM gone), 0)) RETURNING (SELECT count(*) FROM gone)::int AS removed`;
const prunedThroughSql = 'SELECT seq FROM change_log_pruned';
// The first caller's key wins: a caller that lost the race reads the winner's (its own insert did nothing).
const signingKeySql = `WITH made AS (INSERT INTO signing_keys (purpose, secret) VALUES ('change-log', $1::text) ON CONFLICT (purpose) DO NOTHING RETURNING secret)
  SELECT secret FROM made UNION ALL SELECT secret FROM signing_keys WHERE purpose = 'change-log'`;
// One row per entry, from arrays: one statement whatever their number.
const insertSql = `INSERT INTO change_log (${changeLogInsertColumns})
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::boolean[], $10::text[], $11::text[], $12::text[])`;
// Held to the commit: the next writer's rows take their seq once this one's have committed.
const lockSql = `SELECT pg_advisory_xact_lock(${changeLogLockKey}, hashtext(coalesce(current_schema(), '')))`;

/**
 * The change_log table. In a transaction, `append` keeps the entries and `flush` writes them just
 * before the commit, under a lock of the log held to the commit: transactions that commit side by
 * side take their seq in the order they commit, so a reader past a seq never meets a smaller one.
 */
export function createPostgresChangeLog(statements: StatementSource): ChangeLogStore & { flush(client: Pick<pg.PoolClient, 'query'>): Promise<void> } {
  const pending: ChangeEntry[] = [];
  return {
    async append(entries) {
      pending.push(...entries);
    },
    async flush(client) {
      if (pending.length === 0) return;
      const rows = pending.splice(0).map((entry) => changeLogRowValues(entry, (archived) => archived));
      await client.query(lockSql);
      await client.query(insertSql, changeLogInsertColumns.split(', ').map((_column, index) => rows.map((row) => row[index])));
    },
    async after(afterSeq, limit) {
      const { rows } = await statements.prepared<ChangeLogRow>(afterSql, [afterSeq, limit]);
      return rows.map(loggedChangeOf);
    },
    async bounds() {
      const { rows } = await statements.prepared<{ oldest: string | null; latest: string }>(boundsSql, []);
      return { oldest: rows[0]!.oldest === null ? null : Number(rows[0]!.oldest), latest: Number(rows[0]!.latest) };
    },
    async prune(before, limit) {
      const { rows } = await statements.prepared<{ removed: number }>(pruneSql, [before, limit]);
      return rows[0]?.removed ?? 0;
    },
    async prunedThrough() {
      const { rows } = await statements.prepared<{ seq: string }>(prunedThroughSql, []);
      return Number(rows[0]!.seq);
    },
    async signingKey() {
      // Twice at most: a statement that waited for another's first insert does not see its row.
      for (let attempt = 0; ; attempt++) {
        const { rows } = await statements.prepared<{ secret: string }>(signingKeySql, [randomBytes(32).toString('hex')]);
        if (rows[0]) return rows[0].secret;
        if (attempt > 0) throw new Error('signing_keys holds no key after an insert');
      }
    },
  };
}
