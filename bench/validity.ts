/**
 * When a measurement counts. The bare server answers from memory: if it does not keep its core
 * busy, something other than the server was the limit (the load generator, or another process
 * on the machine taking the server's core), and a ratio to it says nothing about the CMS. Nor
 * does a run during which other processes took the server's CPU (the machine's own count of that
 * CPU's busy time, less the server's). Such a row is left out of the table and printed with its
 * reasons instead.
 */
import type { LoadResult } from './wrk.js';

/** The least CPU, in % of one core, the bare server must use for the run to count. */
export const busyCorePercent = 90;

/** The most other processes may take of the server's CPU during a run, in % of one core. */
export const othersLimitPercent = 10;

export interface Validity {
  readonly valid: boolean;
  /** Why not, one sentence each; empty when valid. */
  readonly reasons: readonly string[];
}

/** What a paced writer beside the reads achieved (writer.ts). */
export interface WriterOutcome {
  readonly planned: number;
  readonly ok: number;
  readonly failed: number;
}

function errorsOf(result: LoadResult): number {
  return result.statusErrors + result.socketErrors;
}

function percent(value: number): string {
  return `${value.toFixed(0)}%`;
}

export function judge(row: { cms: LoadResult; bare: LoadResult; writer?: WriterOutcome }): Validity {
  const reasons: string[] = [];
  const { cms, bare, writer } = row;
  if (bare.serverCpu < busyCorePercent) {
    reasons.push(
      `the bare server used ${percent(bare.serverCpu)} of its core (< ${busyCorePercent}%; wrk ${percent(bare.loadCpu)}` +
        `${bare.othersOnLoadCpus === undefined ? '' : `, other processes ${percent(bare.othersOnLoadCpus)} of wrk's CPU`}): ` +
        `the load generator or another process was the limit, not the server`,
    );
  }
  // A CMS that idled while other processes crowded wrk's CPU may have waited for its load; one
  // that idled with wrk's CPU to itself waited for something of its own (the disk, a lock).
  const crowdedLoad = cms.othersOnLoadCpus ?? 0;
  if (cms.serverCpu < busyCorePercent && crowdedLoad > othersLimitPercent) {
    reasons.push(`the CMS used ${percent(cms.serverCpu)} of its core while other processes took ${percent(crowdedLoad)} of wrk's CPU (> ${othersLimitPercent}%): it may have waited for its load`);
  }
  for (const [name, result] of [['CMS', cms], ['bare', bare]] as const) {
    const others = result.othersOnServerCpus ?? 0;
    if (others > othersLimitPercent) reasons.push(`other processes took ${percent(others)} of the server's CPU during the ${name} run (> ${othersLimitPercent}%)`);
    if (result.total === 0) reasons.push(`the ${name} run answered nothing`);
    else if (errorsOf(result) > 0) reasons.push(`the ${name} run had ${errorsOf(result)} errors in ${result.total} answers (${result.statusErrors} status ≥ 400, ${result.socketErrors} socket)`);
  }
  if (writer && (writer.failed > 0 || writer.ok < 0.9 * writer.planned)) {
    reasons.push(`the writer beside the reads made ${writer.ok} writes of ${writer.planned} planned (${writer.failed} failed)`);
  }
  return { valid: reasons.length === 0, reasons };
}
