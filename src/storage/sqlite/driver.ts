import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

// better-sqlite3 12 derives its objects from node::ObjectWrap, whose header since Node 24.19
// removes a per-object environment cleanup hook in the destructor; a garbage collection outside
// JavaScript has no environment, so collecting a statement aborts the process
// (`Assertion failed: (env) != nullptr`), seconds after start. better-sqlite3 13 uses Node-API 10
// instead, which Node 20 and Node 22 before 22.14 lack: there it crashes in `new Database()`.
// So each runtime loads the driver it can run; the `better-sqlite3-node20` alias (12.x) goes
// once Node 20 is no longer supported.
const nodeApiOfDriver13 = 10;

/** The npm package of the SQLite driver for the running Node.js. */
export const sqliteDriverPackage =
  Number(process.versions.napi) >= nodeApiOfDriver13 ? 'better-sqlite3' : 'better-sqlite3-node20';

/** better-sqlite3's Database constructor; both versions have the same interface. */
const Database = loadDriver();
export default Database;

function loadDriver(): typeof BetterSqlite3 {
  try {
    return createRequire(import.meta.url)(sqliteDriverPackage);
  } catch (error) {
    // The 12.x alias is an optional dependency (newer runtimes need no compiler), so npm skips it
    // without failing when its native build fails.
    const problem = `The SQLite driver for Node.js ${process.version}, ${sqliteDriverPackage}, cannot be loaded`;
    throw new Error(`${problem}; if npm could not build it, reinstall with a C++ compiler at hand`, { cause: error });
  }
}
