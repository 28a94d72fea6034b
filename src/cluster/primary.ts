import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import type { AppConfig } from '../content/app-config.js';
import { createStorage } from '../storage/create-storage.js';
import { createFieldTypeRegistry } from '../content/fields/registry.js';
import { loggedProgress, reindexStaleTypes } from '../content/indexing/reindex.js';
import { newSetupCode, setupCodeNotice } from '../auth/first-run-setup.js';
import { RestartPolicy, defaultRestartLimits } from './restart-policy.js';
import { startLines } from '../config/start-lines.js';
import { attachmentsGenerationKey } from '../content/generation-keys.js';

export interface PrimaryOptions {
  /** Warnings to log once every worker listens (each worker logs nothing of its own at start). */
  readonly startWarnings: readonly string[];
}

/**
 * The primary of `config.workers` server processes (`CMS_WORKERS`): it serves nothing itself.
 * It migrates the store and makes the first-run setup code once, so that workers never race on
 * either, forks the workers (they share the port: the primary accepts connections and hands
 * them out in turn), forks a new one when one dies, and stops them all on SIGTERM or SIGINT.
 */
export async function runPrimary(config: AppConfig, options: PrimaryOptions): Promise<void> {
  const log = pino({ level: config.logLevel });
  const setupCode = await prepareStore(config, log);
  const supervisor = new WorkerSupervisor({
    config,
    log,
    onAllListening: (address) => {
      log.info({ workers: config.workers }, `${config.workers} workers listening at ${urlOf(address)}`);
      for (const line of startLines(config, [...config.pieceTypes.keys()], address.port)) log.info(line.data, line.msg);
      for (const warning of options.startWarnings) log.warn(warning);
      if (setupCode !== null) log.warn(setupCodeNotice(setupCode));
    },
  });
  process.on('SIGINT', () => supervisor.stop('SIGINT'));
  process.on('SIGTERM', () => supervisor.stop('SIGTERM'));
  supervisor.start();
}

/** Migrations, the index brought up to the configuration and the setup code, with a connection of the primary's own, closed before forking. */
async function prepareStore(config: AppConfig, log: Logger): Promise<string | null> {
  const storage = await createStorage(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    connectTimeout: config.limits.postgresConnectTimeout,
    statementTimeout: config.limits.postgresStatementTimeout,
    busyTimeout: config.limits.sqliteBusyTimeout,
    attachmentsGenerationKey,
  });
  try {
    await storage.migrate();
    await reindexStaleTypes({ config, storage, fieldTypes: createFieldTypeRegistry() }, loggedProgress(log));
    return await newSetupCode(storage);
  } finally {
    await storage.close();
  }
}

/** What cluster says a worker listens on (`addressType` 4 or 6). */
type ListeningAddress = Pick<AddressInfo, 'address' | 'port'> & { readonly addressType: number | string };

function urlOf(address: ListeningAddress): string {
  const host = address.addressType === 6 || address.addressType === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

interface SupervisorDeps {
  readonly config: AppConfig;
  readonly log: Logger;
  readonly onAllListening: (address: ListeningAddress) => void;
}

/** Keeps `config.workers` workers running until asked to stop, or until they cannot start. */
class WorkerSupervisor {
  readonly #deps: SupervisorDeps;
  readonly #policy: RestartPolicy;
  /** Workers forked and not exited yet, by id; `cluster.workers` keeps an exited one until it disconnects. */
  readonly #alive = new Map<number, Worker>();
  readonly #listening = new Set<number>();
  readonly #pendingForks = new Set<NodeJS.Timeout>();
  #announced = false;
  #stopping: { exitCode: number } | null = null;

  constructor(deps: SupervisorDeps) {
    this.#deps = deps;
    this.#policy = new RestartPolicy(defaultRestartLimits(deps.config.workers));
  }

  start(): void {
    cluster.on('listening', (worker, address) => this.#listened(worker, address));
    cluster.on('exit', (worker, code, signal) => this.#exited(worker, code, signal));
    for (let i = 0; i < this.#deps.config.workers; i++) this.#fork();
  }

  /**
   * Asks every worker to close (each lets its requests in flight finish, then exits) and exits
   * once they all have. A second signal while stopping kills them at once.
   */
  stop(reason: string, exitCode = 0): void {
    if (this.#stopping) {
      this.#deps.log.warn({ reason }, 'stopping now: killing the workers');
      for (const worker of this.#alive.values()) worker.process.kill('SIGKILL');
      process.exit(1);
    }
    this.#stopping = { exitCode };
    this.#deps.log.info({ reason }, 'shutting down: the workers finish their requests');
    for (const timer of this.#pendingForks) clearTimeout(timer);
    this.#pendingForks.clear();
    for (const worker of this.#alive.values()) worker.process.kill('SIGTERM');
    this.#exitWhenNoneLeft();
  }

  #fork(): void {
    const worker = cluster.fork();
    this.#alive.set(worker.id, worker);
  }

  #listened(worker: Worker, address: ListeningAddress): void {
    this.#listening.add(worker.id);
    if (this.#announced || this.#listening.size < this.#deps.config.workers) return;
    this.#announced = true;
    this.#deps.onAllListening(address);
  }

  #exited(worker: Worker, code: number | null, signal: string | null): void {
    this.#alive.delete(worker.id);
    const listened = this.#listening.delete(worker.id);
    if (this.#stopping) {
      this.#exitWhenNoneLeft();
      return;
    }
    const { log } = this.#deps;
    const who = { workerPid: worker.process.pid, code, signal };
    const decision = this.#policy.afterDeath({ listened, now: Date.now() });
    if ('giveUp' in decision) {
      log.error(who, 'Workers keep dying before they listen: giving up (the lines above say why)');
      this.stop('workers cannot start', 1);
      return;
    }
    log.warn({ ...who, restartInMs: decision.restartInMs }, listened ? 'A worker died; starting another' : 'A worker died while starting; starting another');
    const timer = setTimeout(() => {
      this.#pendingForks.delete(timer);
      this.#fork();
    }, decision.restartInMs);
    this.#pendingForks.add(timer);
  }

  #exitWhenNoneLeft(): void {
    if (this.#stopping && this.#alive.size === 0) process.exit(this.#stopping.exitCode);
  }
}
