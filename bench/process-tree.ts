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

/** Peak resident memory (VmHWM) of a process so far, in KiB; 0 once it is gone. */
export function peakRssKiB(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
