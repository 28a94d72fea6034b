import type { StatementSource } from './statement-cache.js';

/**
 * `PRAGMA data_version` of the read connection. The read connection never writes, so the value
 * moves with every commit made on the file: by this process's write connection as by any other
 * process. It costs a read of the WAL index header, not of the data.
 */
export function readDataVersion(statements: StatementSource): number {
  return statements.statement('PRAGMA data_version').pluck().get() as number;
}
