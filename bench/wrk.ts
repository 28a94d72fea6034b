/**
 * The load generator: wrk (C, an event loop per thread), pinned to its own CPU with taskset, with
 * bench/wrk-requests.lua building the requests (distinct bodies and ids for writes) and printing
 * its figures in a form read here. While it runs, the CPU time of wrk and of the server is
 * sampled from /proc, so each result says whether the server or the load generator was the limit.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, cpusBusySeconds, parseCpuList, processesCpuSeconds, sampleCpu } from './cpu.js';
import { pinned } from './servers.js';

const here = fileURLToPath(new URL('.', import.meta.url));
/** The Lua script lives beside the TypeScript sources (the build copies no Lua into dist/). */
const script = join(here, '..', '..', 'bench', 'wrk-requests.lua');

export interface LoadSpec {
  readonly base: string;
  readonly method: 'GET' | 'POST' | 'PATCH';
  /** Taken in turn, one per request. */
  readonly paths: readonly string[];
  readonly headers: Record<string, string>;
  /** JSON text with `{n}` replaced by an id that differs per request. */
  readonly bodyTemplate?: string;
  readonly connections: number;
  readonly threads: number;
  readonly seconds: number;
}

export interface LoadResult {
  readonly rps: number;
  /** Latency percentiles from wrk's distribution, in ms. */
  readonly p50: number;
  readonly p99: number;
  /** Answers with a status of 400 or more (wrk's "non-2xx or 3xx"). */
  readonly statusErrors: number;
  /** Connect, read and write errors and timeouts. */
  readonly socketErrors: number;
  /** Answers received, whatever their status. */
  readonly total: number;
  /** wrk's CPU use over the run, % of one core. */
  readonly loadCpu: number;
  /** The server's CPU use over the same time (its process and children), % of one core. */
  readonly serverCpu: number;
  /**
   * What other processes (and the hypervisor's steal) took of the server's CPUs meanwhile, % of
   * one core: the server's CPUs' busy time less the server's own. Unknown (undefined) when the
   * server is not pinned.
   */
  readonly othersOnServerCpus?: number;
  /** The same on wrk's CPUs (wrk's own time and the bench's writer count as ours). */
  readonly othersOnLoadCpus?: number;
}

/** What the Lua `done` hook prints on its line. */
export interface WrkFigures {
  readonly requests: number;
  readonly durationUs: number;
  readonly bytes: number;
  readonly errors: { readonly connect: number; readonly read: number; readonly write: number; readonly status: number; readonly timeout: number };
  readonly latencyUs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly p999: number; readonly mean: number; readonly max: number };
}

const marker = 'BENCH-WRK-RESULT ';

/** The figures in wrk's output (the `done` hook's line), or an error quoting what wrk printed instead. */
export function parseWrkOutput(stdout: string): WrkFigures {
  const line = stdout.split('\n').find((each) => each.startsWith(marker));
  if (!line) throw new Error(`wrk printed no result line (is bench/wrk-requests.lua its script?):\n${stdout}`);
  const figures = JSON.parse(line.slice(marker.length)) as WrkFigures;
  if (!(figures.durationUs > 0)) throw new Error(`wrk ran for no time: ${line}`);
  return figures;
}

/** Requests a second, errors and latency in ms from wrk's figures. */
export function summarize(figures: WrkFigures): Pick<LoadResult, 'rps' | 'p50' | 'p99' | 'statusErrors' | 'socketErrors' | 'total'> {
  const { connect, read, write, timeout, status } = figures.errors;
  return {
    rps: figures.requests / (figures.durationUs / 1e6),
    p50: figures.latencyUs.p50 / 1000,
    p99: figures.latencyUs.p99 / 1000,
    statusErrors: status,
    socketErrors: connect + read + write + timeout,
    total: figures.requests,
  };
}

/** wrk's version ("4.1.0-3+b2"); installs Debian's package first when wrk is missing and the bench runs as root. */
export function ensureWrk(): string {
  const version = () => {
    const probe = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
    return probe.error ? undefined : (/wrk (?:debian\/)?(\S+)/.exec(probe.stdout + probe.stderr)?.[1] ?? 'unknown');
  };
  const found = version();
  if (found) return found;
  if (process.getuid?.() !== 0) {
    throw new Error('The bench needs wrk (the load generator), which is not installed, and it is not running as root to install it. Install it (Debian, Ubuntu: `sudo apt-get install -y wrk`) and run again.');
  }
  process.stderr.write('wrk is missing: apt-get install -y wrk…\n');
  let install = spawnSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' });
  if (install.status !== 0) {
    // A fresh image has no package lists yet.
    spawnSync('apt-get', ['update'], { stdio: 'inherit' });
    install = spawnSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' });
  }
  const installed = version();
  if (install.status !== 0 || !installed) throw new Error('apt-get install -y wrk failed (see above); install wrk and run again.');
  return installed;
}

/** Fails with a clear message when taskset (util-linux) is missing. */
export function ensureTaskset(): void {
  if (spawnSync('taskset', ['-V']).error) throw new Error('The bench pins processes to CPUs with taskset (util-linux), which is not installed.');
}

/**
 * One wrk run of `spec`, on `cpus` (a taskset list; undefined: unpinned), the CPU of `serverPids`
 * sampled meanwhile. Files for the Lua script (the paths, the body template) go to `dir`.
 */
export async function runWrk(
  spec: LoadSpec,
  options: { dir: string; cpus?: string; serverPids: () => readonly number[]; serverCpus?: string; ownPidsOnLoadCpus?: () => readonly number[]; run: string },
): Promise<LoadResult> {
  const env: Record<string, string> = {
    ...process.env,
    BENCH_WRK_METHOD: spec.method,
    BENCH_WRK_HEADERS: Object.entries(spec.headers).map(([name, value]) => `${name}: ${value}`).join('\n'),
    BENCH_WRK_RUN: options.run,
  };
  if (spec.paths.length > 1) {
    env.BENCH_WRK_PATHS = join(options.dir, 'wrk-paths.txt');
    await writeFile(env.BENCH_WRK_PATHS, spec.paths.join('\n') + '\n');
  }
  if (spec.bodyTemplate !== undefined) {
    env.BENCH_WRK_BODY = join(options.dir, 'wrk-body.json');
    await writeFile(env.BENCH_WRK_BODY, spec.bodyTemplate);
  }
  const threads = Math.min(spec.threads, spec.connections);
  const wrkArgs = ['-t', String(threads), '-c', String(spec.connections), '-d', `${spec.seconds}s`, '--timeout', '5s', '-s', script, spec.base + spec.paths[0]];
  // taskset execs wrk: the child's pid is wrk's.
  const [command, args] = pinned(options.cpus, 'wrk', wrkArgs);
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid!;
  const serverCpus = options.serverCpus === undefined ? undefined : parseCpuList(options.serverCpus);
  const loadCpus = options.cpus === undefined ? undefined : parseCpuList(options.cpus);
  const sampler = sampleCpu(
    {
      load: () => cpuSeconds(pid) ?? 0,
      server: () => processesCpuSeconds(options.serverPids()),
      serverCpus: () => (serverCpus ? cpusBusySeconds(serverCpus) : 0),
      ownOnLoadCpus: () => processesCpuSeconds([pid, process.pid, ...(options.ownPidsOnLoadCpus?.() ?? [])]),
      loadCpus: () => (loadCpus ? cpusBusySeconds(loadCpus) : 0),
    },
    () => cpuSeconds(pid) !== undefined,
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  const cpu = sampler.stop();
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${stderr}${stdout}`);
  const othersOnServerCpus = serverCpus ? Math.max(0, cpu.serverCpus!.percent - cpu.server!.percent) : undefined;
  const othersOnLoadCpus = loadCpus ? Math.max(0, cpu.loadCpus!.percent - cpu.ownOnLoadCpus!.percent) : undefined;
  return { ...summarize(parseWrkOutput(stdout)), loadCpu: cpu.load!.percent, serverCpu: cpu.server!.percent, othersOnServerCpus, othersOnLoadCpus };
}
