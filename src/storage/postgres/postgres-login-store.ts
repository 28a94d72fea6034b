import type { BearerToken, LoginStore, TokenStore, UserLogin } from '../storage-adapter.js';
import type { StatementSource } from './statements.js';
import { conflictError, translatingErrors } from './translate-error.js';

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

const getLoginSql = `SELECT ${loginColumns} FROM user_logins WHERE user_id = $1::text`;
// The unique indexes hold hashes of the names: each test compares the hashes, then the names.
const usernameIs = (name: string) => `(md5(username) = md5(${name}) AND username = ${name})`;
const emailIs = (name: string) => `(md5(email) = md5(${name}) AND email = ${name})`;

// A name that is one user's username and another's email resolves to the username.
const findLoginByNameSql = `SELECT ${loginColumns} FROM user_logins
  WHERE ${usernameIs('$1::text')} OR ${emailIs('$1::text')} ORDER BY username = $1::text DESC LIMIT 1`;
// Writes nothing, and raises nothing, when another user has the username or the email, so that
// the transaction it runs in is not aborted; the store then names the conflict.
const putLoginSql = `INSERT INTO user_logins (${loginColumns})
  SELECT $1::text, $2::text, $3::text, $4::text
  WHERE NOT EXISTS (
    SELECT 1 FROM user_logins WHERE user_id <> $1::text AND (${usernameIs('$2::text')} OR ${emailIs('$3::text')}))
  ON CONFLICT (user_id) DO UPDATE SET
    username = excluded.username, email = excluded.email, password_hash = excluded.password_hash`;
const usernameTakenSql = `SELECT EXISTS (SELECT 1 FROM user_logins WHERE user_id <> $1::text AND ${usernameIs('$2::text')}) AS taken`;
const removeLoginSql = 'DELETE FROM user_logins WHERE user_id = $1::text';
const loginsAfterSql = `SELECT ${loginColumns} FROM user_logins WHERE user_id > $1::text ORDER BY user_id LIMIT $2::int`;

const getTokenSql = 'SELECT token, user_id, expires_at FROM bearer_tokens WHERE token = $1::text';
const putTokenSql = `INSERT INTO bearer_tokens (token, user_id, expires_at) VALUES ($1::text, $2::text, $3::text)
  ON CONFLICT (token) DO UPDATE SET user_id = excluded.user_id, expires_at = excluded.expires_at`;
const removeTokenSql = 'DELETE FROM bearer_tokens WHERE token = $1::text';
const removeUserTokensSql = 'DELETE FROM bearer_tokens WHERE user_id = $1::text';

/** The user_logins table, read and written through the given statements. */
export function createPostgresLoginStore(statements: StatementSource): LoginStore {
  return {
    async get(userId) {
      const { rows } = await statements.prepared<LoginRow>(getLoginSql, [userId]);
      return toLogin(rows[0]);
    },

    async findByName(usernameOrEmail) {
      const { rows } = await statements.prepared<LoginRow>(findLoginByNameSql, [usernameOrEmail]);
      return toLogin(rows[0]);
    },

    async put({ userId, username, email, passwordHash }) {
      const written = await translatingErrors(() => statements.prepared(putLoginSql, [userId, username, email, passwordHash]));
      if (written.rowCount !== 0) return;
      const { rows } = await statements.prepared<{ taken: boolean }>(usernameTakenSql, [userId, username]);
      throw conflictError(rows[0]!.taken ? 'user_logins_username' : 'user_logins_email');
    },

    async remove(userId) {
      await statements.prepared(removeLoginSql, [userId]);
    },

    async loginsAfter(afterUserId, limit) {
      const { rows } = await statements.prepared<LoginRow>(loginsAfterSql, [afterUserId ?? '', limit]);
      return rows.map((row) => toLogin(row)!);
    },
  };
}

/** The bearer_tokens table, read and written through the given statements. */
export function createPostgresTokenStore(statements: StatementSource): TokenStore {
  return {
    async get(token) {
      const { rows } = await statements.prepared<TokenRow>(getTokenSql, [token]);
      const row = rows[0];
      return row === undefined ? null : { token: row.token, userId: row.user_id, expiresAt: row.expires_at };
    },

    async put({ token, userId, expiresAt }: BearerToken) {
      await statements.prepared(putTokenSql, [token, userId, expiresAt]);
    },

    async remove(token) {
      await statements.prepared(removeTokenSql, [token]);
    },

    async removeForUser(userId) {
      await statements.prepared(removeUserTokensSql, [userId]);
    },
  };
}

function toLogin(row: LoginRow | undefined): UserLogin | null {
  if (row === undefined) return null;
  return { userId: row.user_id, username: row.username, email: row.email, passwordHash: row.password_hash };
}
