import type { AccountSecurityStore, StoredAccountCode, StoredTotp } from '../interface/account-security.js';
import type { StatementSource } from './statements.js';

const totpSelected = 'user_id AS "userId", secret, enabled_at AS "enabledAt", last_step::int AS "lastStep"';
const codeSelected = 'digest, user_id AS "userId", purpose, created_at AS "createdAt", expires_at AS "expiresAt", used_at AS "usedAt"';

const getTotpSql = `SELECT ${totpSelected} FROM account_totp WHERE user_id = $1::text`;
const putTotpSql = `INSERT INTO account_totp (user_id, secret, enabled_at, last_step) VALUES ($1::text, $2::text, $3::text, $4::bigint)
  ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, enabled_at = EXCLUDED.enabled_at, last_step = EXCLUDED.last_step`;
const advanceSql = 'UPDATE account_totp SET last_step = $1::bigint WHERE user_id = $2::text AND last_step < $1::bigint';
const removeTotpSql = 'DELETE FROM account_totp WHERE user_id = $1::text';
const insertCodeSql = `INSERT INTO account_codes (digest, user_id, purpose, created_at, expires_at, used_at)
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text)`;
const findCodeSql = `SELECT ${codeSelected} FROM account_codes WHERE digest = $1::text`;
const takeCodeSql = `UPDATE account_codes SET used_at = $1::text
  WHERE digest = $2::text AND used_at IS NULL AND (expires_at IS NULL OR expires_at > $1::text)`;
const releaseCodeSql = 'UPDATE account_codes SET used_at = NULL WHERE digest = $1::text';
const removeCodesSql = 'DELETE FROM account_codes WHERE user_id = $1::text AND purpose = $2::text';
const countLiveSql = `SELECT count(*)::int AS count FROM account_codes
  WHERE user_id = $1::text AND purpose = $2::text AND used_at IS NULL AND (expires_at IS NULL OR expires_at > $3::text)`;

/** The account_totp and account_codes tables, through the given statements. */
export function createPostgresAccountSecurityStore(statements: StatementSource): AccountSecurityStore {
  return {
    async getTotp(userId) {
      const { rows } = await statements.prepared<StoredTotp>(getTotpSql, [userId]);
      return rows[0] ?? null;
    },

    async putTotp({ userId, secret, enabledAt, lastStep }) {
      await statements.prepared(putTotpSql, [userId, secret, enabledAt, lastStep]);
    },

    async advanceTotpStep(userId, step) {
      const updated = await statements.prepared(advanceSql, [step, userId]);
      return updated.rowCount === 1;
    },

    async removeTotp(userId) {
      await statements.prepared(removeTotpSql, [userId]);
    },

    async insertCode({ digest, userId, purpose, createdAt, expiresAt, usedAt }) {
      await statements.prepared(insertCodeSql, [digest, userId, purpose, createdAt, expiresAt, usedAt]);
    },

    async findCode(digest) {
      const { rows } = await statements.prepared<StoredAccountCode>(findCodeSql, [digest]);
      return rows[0] ?? null;
    },

    async takeCode(digest, now) {
      const taken = await statements.prepared(takeCodeSql, [now, digest]);
      return taken.rowCount === 1;
    },

    async releaseCode(digest) {
      await statements.prepared(releaseCodeSql, [digest]);
    },

    async removeCodes(userId, purpose) {
      const removed = await statements.prepared(removeCodesSql, [userId, purpose]);
      return removed.rowCount ?? 0;
    },

    async countLiveCodes(userId, purpose, now) {
      const { rows } = await statements.prepared<{ count: number }>(countLiveSql, [userId, purpose, now]);
      return rows[0]?.count ?? 0;
    },
  };
}
