import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

// better-sqlite3 12 wraps its objects in node::ObjectWrap, whose header in Node 24.19 and later
// removes an environment cleanup hook when an object is collected: a statement collected outside
// a JavaScript context aborts the process (`Assertion failed: (env) != nullptr`), seconds after
// start. better-sqlite3 13 is built on Node-API 10 instead, which Node 20 and Node 22 before 22.14
// lack: there it crashes in `new Database()`. So each runtime loads the driver it can run; the
// `better-sqlite3-node20` alias (12.x) goes once Node 20 is no longer supported.
const nodeApiOfDriver13 = 10;

/** The npm package of the SQLite driver for the running Node.js. */
export const sqliteDriverPackage =
  Number(process.versions.napi) >= nodeApiOfDriver13 ? 'better-sqlite3' : 'better-sqlite3-node20';

const require = createRequire(import.meta.url);

/** better-sqlite3's Database constructor; both versions have the same interface. */
const Database: typeof BetterSqlite3 = require(sqliteDriverPackage);
export default Database;
