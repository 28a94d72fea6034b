import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childrenOf } from '../../bench/process-tree.js';

const main = fileURLToPath(new URL('../../src/main.js', import.meta.url));

/** One JSON log line of the server (pino's fields plus what the line carries). */
export interface LogLine {
  readonly level: number;
  readonly pid: number;
  readonly msg: string;
  readonly req?: { readonly method: string; readonly url: string };
  readonly [key: string]: unknown;
}

export interface ProcessResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly body: any;
  /** The process whose log shows the request: a worker with several, the server itself without. */
  readonly pid: number;
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** Every log line so far, parsed. */
  lines(): LogLine[];
  /** Everything the process wrote so far, stdout and stderr: for the message of a failed assertion. */
  output(): string;
  /** Resolves with the first line (already written or to come) that passes `test`. */
  waitForLine(test: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /**
   * One request on a connection of its own: the primary hands each connection to the next worker.
   * Requests sent at the same time need URLs of their own, or the log cannot tell them apart.
   */
  request(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string> }): Promise<ProcessResponse>;
  /** The process's children (the workers of a primary), read from /proc. */
  childPids(): number[];
  /** Resolves with how the process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (or `signal`), then the exit; removes the data directory. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const roundRobinPauseMs = 15;

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts `node dist/src/main.js` as a user does, on a free port of 127.0.0.1 and a new data
 * directory, and resolves once `ready` has been logged (default: the line of the started process
 * saying it listens, which with workers is the primary's, logged once all of them listen).
 */
export async function startServerProcess(options: {
  env: Record<string, string>;
  ready?: (line: LogLine) => boolean;
  port?: number;
  /** Given to node before the entry point (`--import` a module). */
  nodeArgs?: readonly string[];
}): Promise<ServerProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cms-process-'));
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), main], {
    cwd: dataDir,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), CMS_DATA_DIR: dataDir, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  let output = '';
  const waiters = new Set<() => void>();
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    for (const text of complete) {
      output += `${text}\n`;
      if (text.startsWith('{')) lines.push(JSON.parse(text) as LogLine);
    }
    for (const wake of waiters) wake();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      for (const wake of waiters) wake();
      resolve({ code, signal });
    });
  });

  const waitForLine = (test: (line: LogLine) => boolean, timeoutMs = 20_000) =>
    new Promise<LogLine>((resolve, reject) => {
      const check = () => {
        const found = lines.find(test);
        if (found) {
          finish();
          resolve(found);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          finish();
          reject(new Error(`the server exited before the expected line:\n${output}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`the expected line did not come within ${timeoutMs} ms:\n${output}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  const incoming = (method: string, url: string) =>
    lines.filter((line) => line.msg === 'incoming request' && line.req?.method === method && line.req.url === url);

  const server: ServerProcess = {
    child,
    port,
    lines: () => lines,
    waitForLine,
    async request(method, path, { body, headers = {} } = {}) {
      // Sequential requests to one URL are logged in order: the n-th line is this request's.
      const seen = incoming(method, path).length;
      // The primary hands a connection to the first worker that said it is free again: connections
      // opened back to back can all go to the same one. A short pause lets turns alternate.
      await new Promise((resolve) => setTimeout(resolve, roundRobinPauseMs));
      const response = await sendRequest(port, method, path, body, headers);
      await waitForLine(() => incoming(method, path).length > seen, 5_000);
      return { ...response, pid: incoming(method, path)[seen]!.pid };
    },
    childPids: () => childrenOf(child.pid!),
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const result = await exited;
      await rm(dataDir, { recursive: true, force: true });
      return result;
    },
  };
  try {
    // Workers log their own "listening at" lines first: only the started process's says all are ready.
    await waitForLine(options.ready ?? ((line) => line.pid === child.pid && /listening at/.test(line.msg)));
  } catch (error) {
    await server.stop('SIGKILL');
    throw error;
  }
  return server;
}

/** One request on a connection of its own to 127.0.0.1:`port`, the body sent as JSON. */
export function sendRequest(
  port: number,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Omit<ProcessResponse, 'pid'>> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: { connection: 'close', ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
