/**
 * One row from several alternating measurements. A VM drifts: its neighbours, its host's clock
 * and caches change within minutes, and a CMS run and a bare run a minute apart once differed by
 * more than the CMS's own cost (list page 1 at 92.9% of bare in one run, 51.7% in the next, same
 * code). So a row measures pairs, the CMS then the bare server, then the bare server then the
 * CMS (ABBA: a drift during the row weighs on both alike), and reports the pair whose ratio is
 * the median of the valid pairs. One disturbed run moves no verdict.
 */
import type { Validity, WriterOutcome } from './validity.js';
import type { LoadResult } from './wrk.js';

/** A CMS run and a bare run of one scenario, back to back. */
export interface Pair {
  readonly cms: LoadResult;
  readonly bare: LoadResult;
  /** CMS req/s ÷ bare req/s. */
  readonly ratio: number;
  /** The paced writer beside the reads, in each of the two runs. */
  readonly writer?: { readonly cms: WriterOutcome; readonly bare: WriterOutcome };
  /** The floor server's run of the same round, when measured. */
  readonly floor?: LoadResult;
  readonly validity: Validity;
}

/** Whether round `round` (from 0) runs the CMS first: CMS–bare, bare–CMS, CMS–bare, … */
export function cmsFirst(round: number): boolean {
  return round % 2 === 0;
}

/** The valid pairs a row needs: a majority of its rounds. */
export function pairsNeeded(rounds: number): number {
  return Math.ceil(rounds / 2);
}

/**
 * Whether a row has measured enough: `rounds` valid pairs, or `rounds × attempts` pairs in all
 * (a shared machine's contention comes and goes; invalid pairs are measured again within that).
 */
export function rowDone(pairs: readonly Pair[], rounds: number, attempts: number): boolean {
  return pairs.filter((pair) => pair.validity.valid).length >= rounds || pairs.length >= rounds * attempts;
}

/** What a row reports of its pairs. */
export interface PairedFigures extends Pair {
  /** Each pair's ratio and validity, in the order measured. */
  readonly pairs: readonly { readonly ratio: number; readonly valid: boolean }[];
}

/**
 * The row's figures: the pair with the median ratio among the valid ones (the lower of the two
 * middle ones when their number is even: a verdict never rests on the better half). With fewer
 * valid pairs than `pairsNeeded(rounds)` the row is invalid, and shows the least disturbed pair,
 * the one whose bare server was busiest.
 */
export function pairedFigures(pairs: readonly Pair[], rounds: number): PairedFigures {
  if (pairs.length === 0) throw new Error('a row needs at least one pair');
  const summary = pairs.map((pair) => ({ ratio: pair.ratio, valid: pair.validity.valid }));
  const valid = pairs.filter((pair) => pair.validity.valid).sort((a, b) => a.ratio - b.ratio);
  const needed = pairsNeeded(rounds);
  if (valid.length >= needed) return { ...valid[Math.floor((valid.length - 1) / 2)]!, pairs: summary };
  const shown = [...pairs].sort((a, b) => b.bare.serverCpu - a.bare.serverCpu)[0]!;
  const short = `${valid.length} of ${pairs.length} pairs valid, ${needed} needed`;
  const reasons = [short, ...(shown.validity.valid ? [] : shown.validity.reasons)];
  return { ...shown, validity: { valid: false, reasons }, pairs: summary };
}
