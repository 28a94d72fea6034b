import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The direct children of a process (a primary's workers), from /proc (Linux). */
export function childrenOf(pid: number): number[] {
  const tasks = `/proc/${pid}/task`;
  if (!existsSync(tasks)) return [];
  return readdirSync(tasks).flatMap((task) => {
    try {
      return readFileSync(join(tasks, task, 'children'), 'utf8').split(/\s+/).filter(Boolean).map(Number);
    } catch {
      // The thread ended between the listing and the read.
      return [];
    }
  });
}

/** A memory figure of /proc/<pid>/status in KiB (VmRSS: resident now; VmHWM: peak so far); 0 once the process is gone. */
function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Peak resident memory (VmHWM) of a process so far, in KiB. */
export function peakRssKiB(pid: number): number {
  return statusKiB(pid, 'VmHWM');
}

/** Resident memory (VmRSS) of a process now, in KiB. */
export function rssKiB(pid: number): number {
  return statusKiB(pid, 'VmRSS');
}

/** A process and its direct children (a primary and its workers). */
export function withChildren(pid: number): number[] {
  return [pid, ...childrenOf(pid)];
}
