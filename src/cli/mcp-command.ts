import type { AppConfig } from '../content/app-config.js';
import type { Caller } from '../content/documents/caller.js';
import type { StorageAdapter } from '../storage/storage-adapter.js';
import { anonymous } from '../core/principal.js';
import { ApiKeys } from '../auth/api-keys.js';
import { StoredApiKeys } from '../auth/stored-api-keys.js';
import { SchemaDescriber } from '../content/schema/describe-schema.js';
import { CallAudit } from '../content/audit/call-audit.js';
import { mapError } from '../http/error-mapper.js';
import { serveMcpOverStdio } from '../mcp/transports.js';
import type { CliCommand, CliIo } from './command.js';
import { parseArguments } from './arguments.js';
import { loadCliConfig, withDocuments } from './runtime.js';

/**
 * `cms mcp`: the MCP server on stdin and stdout, for an agent that starts it as a local process,
 * acting as one API key with that key's role, as the HTTP server would for that key. Nothing but
 * the protocol goes to stdout; failures are written to stderr.
 */
export const mcpCommand: CliCommand = {
  name: 'mcp',
  summary: 'serve the MCP server on stdin and stdout, acting as an API key',
  usage:
    '[--api-key <key>]\n\n' +
    'The key (configured, or made with cms apikey create) may also come in CMS_API_KEY, which keeps it out of the process list. ' +
    'Without one the command refuses to start, unless the configuration sets mcp.anonymous: then it acts as an anonymous reader. ' +
    'It runs until its input ends.',
  async run(args, io) {
    const { values } = parseArguments(args, { 'api-key': { type: 'string' } }, []);
    const key = values['api-key'] ?? io.env.CMS_API_KEY;
    const config = await loadCliConfig(io);
    if (key === undefined && !config.mcp.anonymous) {
      throw new Error('give the API key to act as (--api-key <key>, or CMS_API_KEY): anonymous callers are refused unless the configuration sets mcp.anonymous');
    }
    await withDocuments(config, async (documents, storage, content) => {
      const caller = await callerOfKey(config, storage, key);
      const deps = {
        documents,
        schema: new SchemaDescriber(config, content.fieldTypes),
        typeNames: new Set(config.pieceTypes.keys()),
        audit: new CallAudit(storage),
        describeError: mapError,
        onInternalError: (error: unknown, what: string) => io.stderr.write(`cms mcp: ${what}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`),
      };
      await serveMcpOverStdio(deps, caller, io.stdin, io.stdout);
    });
    return 0;
  },
};

/** The caller a key acts as, looked up once at start as the auth hook looks up a request's: configured keys first, then stored ones. */
async function callerOfKey(config: AppConfig, storage: StorageAdapter, key: string | undefined): Promise<Caller> {
  if (key === undefined) return { principal: anonymous };
  const stored = new StoredApiKeys(storage);
  const found = new ApiKeys(config.apiKeys).identify(key) ?? (stored.mayBeStored(key) ? await stored.identify(key) : null);
  if (!found) throw new Error('invalid api key: no configured or stored API key matches the one given');
  return { principal: found.principal, keyCallerId: found.callerId };
}
