import type { AccountSecurityStore, StoredAccountCode, StoredTotp } from '../interface/account-security.js';
import type { StatementSource } from './statement-cache.js';

const totpSelected = 'user_id AS userId, secret, enabled_at AS enabledAt, last_step AS lastStep';
const codeSelected = 'digest, user_id AS userId, purpose, created_at AS createdAt, expires_at AS expiresAt, used_at AS usedAt';

const getTotpSql = `SELECT ${totpSelected} FROM account_totp WHERE user_id = ?`;
const putTotpSql = `INSERT INTO account_totp (user_id, secret, enabled_at, last_step) VALUES (?, ?, ?, ?)
  ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, enabled_at = excluded.enabled_at, last_step = excluded.last_step`;
const advanceSql = 'UPDATE account_totp SET last_step = ? WHERE user_id = ? AND last_step < ?';
const removeTotpSql = 'DELETE FROM account_totp WHERE user_id = ?';
const insertCodeSql = 'INSERT INTO account_codes (digest, user_id, purpose, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?)';
const findCodeSql = `SELECT ${codeSelected} FROM account_codes WHERE digest = ?`;
const takeCodeSql = 'UPDATE account_codes SET used_at = ? WHERE digest = ? AND used_at IS NULL AND (expires_at IS NULL OR expires_at > ?)';
const releaseCodeSql = 'UPDATE account_codes SET used_at = NULL WHERE digest = ?';
const removeCodesSql = 'DELETE FROM account_codes WHERE user_id = ? AND purpose = ?';
const countLiveSql = `SELECT count(*) FROM account_codes
  WHERE user_id = ? AND purpose = ? AND used_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`;

/** The account_totp and account_codes tables, through the given connection's statements. */
export function createSqliteAccountSecurityStore(statements: StatementSource): AccountSecurityStore {
  return {
    async getTotp(userId) {
      return (statements.statement(getTotpSql).get(userId) as StoredTotp | undefined) ?? null;
    },

    async putTotp({ userId, secret, enabledAt, lastStep }) {
      statements.statement(putTotpSql).run(userId, secret, enabledAt, lastStep);
    },

    async advanceTotpStep(userId, step) {
      return statements.statement(advanceSql).run(step, userId, step).changes === 1;
    },

    async removeTotp(userId) {
      statements.statement(removeTotpSql).run(userId);
    },

    async insertCode({ digest, userId, purpose, createdAt, expiresAt, usedAt }) {
      statements.statement(insertCodeSql).run(digest, userId, purpose, createdAt, expiresAt, usedAt);
    },

    async findCode(digest) {
      return (statements.statement(findCodeSql).get(digest) as StoredAccountCode | undefined) ?? null;
    },

    async takeCode(digest, now) {
      return statements.statement(takeCodeSql).run(now, digest, now).changes === 1;
    },

    async releaseCode(digest) {
      statements.statement(releaseCodeSql).run(digest);
    },

    async removeCodes(userId, purpose) {
      return statements.statement(removeCodesSql).run(userId, purpose).changes;
    },

    async countLiveCodes(userId, purpose, now) {
      return Number(statements.statement(countLiveSql).pluck().get(userId, purpose, now));
    },
  };
}
