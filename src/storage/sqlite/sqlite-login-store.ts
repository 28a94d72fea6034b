import type { BearerToken, LoginStore, TokenStore, UserLogin } from '../storage-adapter.js';
import type { StatementSource } from './statement-cache.js';
import { translateSqliteError } from './translate-error.js';

interface LoginRow {
  user_id: string;
  username: string;
  email: string | null;
  password_hash: string;
}

interface TokenRow {
  token: string;
  user_id: string;
  expires_at: string;
}

const loginColumns = 'user_id, username, email, password_hash';

const getLoginSql = `SELECT ${loginColumns} FROM user_logins WHERE user_id = ?`;
// A name that is one user's username and another's email resolves to the username.
const findLoginByNameSql = `SELECT ${loginColumns} FROM user_logins
  WHERE username = @name OR email = @name ORDER BY username = @name DESC LIMIT 1`;
const putLoginSql = `INSERT INTO user_logins (${loginColumns})
  VALUES (@userId, @username, @email, @passwordHash)
  ON CONFLICT (user_id) DO UPDATE SET
    username = excluded.username, email = excluded.email, password_hash = excluded.password_hash`;
const removeLoginSql = 'DELETE FROM user_logins WHERE user_id = ?';
const loginsAfterSql = `SELECT ${loginColumns} FROM user_logins WHERE user_id > ? ORDER BY user_id LIMIT ?`;


const getTokenSql = 'SELECT token, user_id, expires_at FROM bearer_tokens WHERE token = ?';
const putTokenSql = `INSERT INTO bearer_tokens (token, user_id, expires_at) VALUES (@token, @userId, @expiresAt)
  ON CONFLICT (token) DO UPDATE SET user_id = excluded.user_id, expires_at = excluded.expires_at`;
const removeTokenSql = 'DELETE FROM bearer_tokens WHERE token = ?';
const removeUserTokensSql = 'DELETE FROM bearer_tokens WHERE user_id = ?';

/** The user_logins table, read and written through the given connection's statements. */
export function createSqliteLoginStore(statements: StatementSource): LoginStore {
  return {
    async get(userId) {
      return toLogin(statements.statement(getLoginSql).get(userId) as LoginRow | undefined);
    },

    async findByName(usernameOrEmail) {
      const row = statements.statement(findLoginByNameSql).get({ name: usernameOrEmail });
      return toLogin(row as LoginRow | undefined);
    },

    async put({ userId, username, email, passwordHash }) {
      try {
        statements.statement(putLoginSql).run({ userId, username, email, passwordHash });
      } catch (error) {
        throw translateSqliteError(error);
      }
    },

    async remove(userId) {
      statements.statement(removeLoginSql).run(userId);
    },

    async loginsAfter(afterUserId, limit) {
      const rows = statements.statement(loginsAfterSql).all(afterUserId ?? '', limit) as LoginRow[];
      return rows.map((row) => toLogin(row)!);
    },
  };
}

/** The bearer_tokens table, read and written through the given connection's statements. */
export function createSqliteTokenStore(statements: StatementSource): TokenStore {
  return {
    async get(token) {
      const row = statements.statement(getTokenSql).get(token) as TokenRow | undefined;
      return row === undefined ? null : { token: row.token, userId: row.user_id, expiresAt: row.expires_at };
    },

    async put({ token, userId, expiresAt }: BearerToken) {
      statements.statement(putTokenSql).run({ token, userId, expiresAt });
    },

    async remove(token) {
      statements.statement(removeTokenSql).run(token);
    },

    async removeForUser(userId) {
      statements.statement(removeUserTokensSql).run(userId);
    },
  };
}

function toLogin(row: LoginRow | undefined): UserLogin | null {
  if (row === undefined) return null;
  return { userId: row.user_id, username: row.username, email: row.email, passwordHash: row.password_hash };
}
