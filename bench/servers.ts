/**
 * Starting and stopping the processes a bench measures, shared by the benches (bench.ts,
 * pg-writers.ts). With `cpus` (a taskset list) a process starts pinned to those CPUs, every
 * thread and child it makes after them (taskset execs the command: the child's pid is its own).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = join(here, '..', '..');

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/**
 * The server as a user starts it (`node dist/src/main.js` with `env`); resolves once /health
 * answers. `workers` above 1: CMS_WORKERS is set, and the first worker may answer before the
 * others listen, so a second more is given to them.
 */
export async function startCms(
  env: Record<string, string>,
  children: ChildProcess[],
  options: { readonly nodeArgs?: readonly string[]; readonly workers?: number; readonly cpus?: string } = {},
): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const [command, args] = pinned(options.cpus, process.execPath, [...(options.nodeArgs ?? []), join(repo, 'dist/src/main.js')]);
  const child = spawn(command, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    // Its log lines go to stderr with the progress, leaving stdout to the tables.
    stdio: ['ignore', 2, 2],
  });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  for (let tries = 0; tries < 600; tries++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    const ok = await fetch(`${base}/health`).then((r) => r.ok, () => false);
    if (ok && (options.workers ?? 1) > 1) await new Promise((done) => setTimeout(done, 1000));
    if (ok) return { child, base };
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error('the server did not answer /health within 60 s');
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

/** The command and arguments that run `command` on `cpus` (unpinned when undefined). */
export function pinned(cpus: string | undefined, command: string, args: readonly string[]): [string, string[]] {
  return cpus === undefined ? [command, [...args]] : ['taskset', ['-c', cpus, command, ...args]];
}
