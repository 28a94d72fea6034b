/**
 * Which CPUs the bench may use, and how much CPU a process spent (Linux /proc). The server runs on
 * one CPU and the load generator on another (`taskset`), so that neither takes the other's time
 * and each one's use can be read on its own.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** "0-3,6" → [0, 1, 2, 3, 6]: the form of taskset's lists and of /proc's Cpus_allowed_list. */
export function parseCpuList(list: string): number[] {
  return list
    .trim()
    .split(',')
    .filter(Boolean)
    .flatMap((part) => {
      const [from, to] = part.split('-').map((value) => Number(value.trim()));
      if (!Number.isInteger(from) || (to !== undefined && !Number.isInteger(to))) throw new Error(`not a CPU list: "${list}"`);
      return Array.from({ length: (to ?? from!) - from! + 1 }, (_, n) => from! + n);
    });
}

/** The CPUs this process may run on (its affinity, which a container's cpuset narrows). */
export function allowedCpus(): number[] {
  const status = readFileSync('/proc/self/status', 'utf8');
  const list = /Cpus_allowed_list:\s*(\S+)/.exec(status)?.[1];
  if (!list) throw new Error('/proc/self/status has no Cpus_allowed_list: the bench needs Linux');
  return parseCpuList(list);
}

/** Clock ticks per second, the unit of /proc/<pid>/stat's times. */
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU seconds a process has used so far (user + system, every thread), from /proc/<pid>/stat;
 * undefined once it is gone. The fields are counted after the command name's closing
 * parenthesis, since the name may hold spaces.
 */
export function cpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the name.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/**
 * Busy seconds of each listed CPU so far, summed, from /proc/stat (everything but idle and iowait;
 * steal, the time the hypervisor gave another machine, counts as busy: it was not ours to use).
 */
export function cpusBusySeconds(cpus: readonly number[], stat = readFileSync('/proc/stat', 'utf8')): number {
  let ticks = 0;
  for (const line of stat.split('\n')) {
    const match = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!match || !cpus.includes(Number(match[1]))) continue;
    // user nice system idle iowait irq softirq steal (guest time is inside user already).
    const [user, nice, system, _idle, _iowait, irq, softirq, steal] = match[2]!.split(/\s+/).map(Number);
    ticks += user! + nice! + system! + irq! + softirq! + (steal ?? 0);
  }
  return ticks / ticksPerSecond;
}

export interface CpuUse {
  /** CPU time over wall time, in % of one core (two busy cores: 200). */
  readonly percent: number;
  readonly cpuSeconds: number;
  readonly wallSeconds: number;
}

/**
 * Samples CPU seconds (of processes, or of CPUs' busy time: each group's `measure`) every
 * `intervalMs` until `stop`; the use is taken between the first and the last
 * sample at which `alive` (the load generator) still answered, so a process that exits before
 * `stop` is measured over its whole run and no longer.
 */
export function sampleCpu(groups: Record<string, () => number>, alive: () => boolean, intervalMs = 100) {
  type Sample = { at: number; seconds: Record<string, number> };
  const read = (): Sample | undefined => {
    const seconds: Record<string, number> = {};
    for (const [name, measure] of Object.entries(groups)) seconds[name] = measure();
    return alive() ? { at: performance.now(), seconds } : undefined;
  };
  const first = read();
  let last = first;
  const timer = setInterval(() => {
    last = read() ?? last;
  }, intervalMs);
  return {
    stop(): Record<string, CpuUse> {
      clearInterval(timer);
      const result: Record<string, CpuUse> = {};
      for (const name of Object.keys(groups)) {
        const wallSeconds = first && last ? (last.at - first.at) / 1000 : 0;
        const used = first && last ? last.seconds[name]! - first.seconds[name]! : 0;
        result[name] = { percent: wallSeconds > 0 ? (100 * used) / wallSeconds : 0, cpuSeconds: used, wallSeconds };
      }
      return result;
    },
  };
}

/** The CPU seconds of processes so far, summed (those gone count nothing). */
export function processesCpuSeconds(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
}
