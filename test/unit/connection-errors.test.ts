import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isConnectionError, isStatementTimeout, unavailableIfDisconnected } from '../../src/storage/postgres/connections.js';
import { StoreUnavailableError } from '../../src/errors/app-error.js';

/** An error as pg or node:net make it: a message and, for most, a code. */
const failure = (message: string, code?: string) => Object.assign(new Error(message), code === undefined ? {} : { code });

test('the failures of a PostgreSQL that went away are told from those of a statement', () => {
  const away = [
    failure('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    failure('read ECONNRESET', 'ECONNRESET'),
    failure('terminating connection due to administrator command', '57P01'),
    failure('the database system is starting up', '57P03'),
    failure('terminating connection due to idle-session timeout', '57P05'),
    failure('cannot execute INSERT in a read-only transaction', '25006'),
    failure('server login has been failing, try again later (server_login_retry)', '08P01'),
    failure('Connection terminated unexpectedly'),
    failure('Connection terminated due to connection timeout'),
    failure('timeout exceeded when trying to connect'),
    // The statement timeout (pg's query_timeout): a connection whose answer never came.
    failure('Query read timeout'),
    new AggregateError([failure('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED'), failure('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')]),
  ];
  const statement = [
    failure('duplicate key value violates unique constraint "documents_slug"', '23505'),
    failure('deadlock detected', '40P01'),
    failure('canceling statement due to statement timeout', '57014'),
    failure('syntax error at or near "SELEC"', '42601'),
    failure('Connection terminated'),
    'not an error',
  ];
  assert.deepEqual(away.filter((error) => !isConnectionError(error)), []);
  assert.deepEqual(statement.filter(isConnectionError), []);
  const unavailable = unavailableIfDisconnected(away[2]);
  assert.ok(unavailable instanceof StoreUnavailableError);
  assert.equal(unavailable.cause, away[2]);
  assert.equal(unavailableIfDisconnected(statement[0]), statement[0]);
});

test('a statement that waited out its statement timeout is told from a connection that broke', () => {
  assert.equal(isStatementTimeout(failure('Query read timeout')), true);
  // The server's own statement_timeout cancels the statement on a working connection.
  assert.equal(isStatementTimeout(failure('canceling statement due to statement timeout', '57014')), false);
  assert.equal(isStatementTimeout(failure('Connection terminated unexpectedly')), false);
  assert.equal(isStatementTimeout('Query read timeout'), false);
});
