/**
 * What a run prints: the table of valid rows, the rows left out and why, and the targets
 * beside the figures (met, not met, or no valid measurement).
 */
import type { LoadResult } from './wrk.js';
import type { PairedFigures } from './pairs.js';

/** A scenario's row: the figures of its median pair (pairs.ts), and every pair's ratio. */
export interface Row extends PairedFigures {
  readonly scenario: string;
  readonly request: string;
  readonly status: number;
}

export interface SizeReport {
  readonly docs: number;
  /** VmRSS a few seconds after start, before any load, in MiB. */
  readonly idleRssMiB: { readonly cms: number; readonly bare: number };
  readonly rows: readonly Row[];
}

interface Target {
  readonly label: string;
  readonly scenarios: readonly string[];
  /** The figure compared, from a row. */
  readonly figure: (row: Row) => number;
  readonly show: (value: number) => string;
  readonly met: (value: number) => boolean;
}

export function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}

export function rate(rps: number): string {
  return rps < 100 ? rps.toFixed(1) : String(Math.round(rps));
}

function ms(value: number): string {
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

function cpu(value: number): string {
  return `${value.toFixed(0)}%`;
}

/** The targets (issue 24); `writerRate` is the paced editor's writes a second. */
export function targets(writerRate: number): Target[] {
  const ratioAtLeast = (label: string, scenarios: string[], least: number): Target => ({
    label,
    scenarios,
    figure: (row) => row.ratio,
    show: percent,
    met: (value) => value >= least,
  });
  const rpsAtLeast = (label: string, scenario: string, least: number): Target => ({
    label,
    scenarios: [scenario],
    figure: (row) => row.cms.rps,
    show: (value) => `${rate(value)}/s`,
    met: (value) => value >= least,
  });
  return [
    ratioAtLeast('cached anonymous list (`?page=1` included) ≥ 60% of bare', ['list', 'list-page-1'], 0.6),
    ratioAtLeast('cached get one ≥ 60% of bare', ['get-one'], 0.6),
    ratioAtLeast(`the same reads while an editor writes ${writerRate} drafts/s ≥ 50% of bare`, ['list-while-writing', 'get-one-while-writing'], 0.5),
    ratioAtLeast('list page 1, response cache off ≥ 10% of bare', ['list-page-1-cache-off'], 0.1),
    rpsAtLeast('POST, 1 KB rich text ≥ 2,000/s', 'post', 2000),
    rpsAtLeast('PATCH ≥ 2,500/s', 'patch', 2500),
    rpsAtLeast('publish ≥ 1,500/s', 'publish', 1500),
    { label: 'cached reads p99 < 20 ms', scenarios: ['list', 'list-page-1', 'get-one'], figure: (row) => row.cms.p99, show: (value) => `${ms(value)} ms`, met: (value) => value < 20 },
  ];
}

/** "yes", "no", or why it cannot be told, from the rows a target reads. */
export function verdict(target: Target, rows: readonly Row[]): { measured: string; met: string } {
  const parts: string[] = [];
  let missing = 0;
  let failed = 0;
  for (const key of target.scenarios) {
    const row = rows.find((each) => each.scenario === key);
    if (!row) {
      missing++;
      continue;
    }
    const value = target.figure(row);
    if (!row.validity.valid) {
      missing++;
      parts.push(`${key} ${target.show(value)} (invalid run)`);
      continue;
    }
    if (!target.met(value)) failed++;
    parts.push(`${key} ${target.show(value)}`);
  }
  const met = failed > 0 ? 'not met' : missing > 0 ? 'no valid measurement' : 'met';
  return { measured: parts.join(', ') || 'not run', met };
}

const header =
  '| scenario | request | status | req/s | bare req/s | ratio | ratios of the pairs | p50 ms | p99 ms | bare p99 ms | wrk CPU | server CPU | bare: wrk / server CPU | others on server CPU | errors |\n' +
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|';

/** Every pair's ratio, in the order measured; an invalid pair's in brackets. */
function pairRatios(row: Row): string {
  return row.pairs.map((pair) => (pair.valid ? percent(pair.ratio) : `(${percent(pair.ratio)})`)).join(', ');
}

export function tableRow(row: Row): string {
  const { cms, bare } = row;
  const errors = cms.statusErrors + cms.socketErrors;
  const cells = [
    row.scenario,
    row.request,
    row.status,
    rate(cms.rps),
    rate(bare.rps),
    percent(row.ratio),
    pairRatios(row),
    ms(cms.p50),
    ms(cms.p99),
    ms(bare.p99),
    cpu(cms.loadCpu),
    cpu(cms.serverCpu),
    `${cpu(bare.loadCpu)} / ${cpu(bare.serverCpu)}`,
    `${cpu(cms.othersOnServerCpus ?? 0)} / ${cpu(bare.othersOnServerCpus ?? 0)}`,
    errors,
  ];
  return `| ${cells.join(' | ')} |`;
}

const floorHeader = '| scenario | floor req/s | floor p99 ms | floor server CPU | floor / bare | CMS / floor |\n|---|---|---|---|---|---|';

function floorRow(row: Row): string {
  const floor = row.floor!;
  return `| ${[row.scenario, rate(floor.rps), ms(floor.p99), cpu(floor.serverCpu), percent(floor.rps / row.bare.rps), percent(row.cms.rps / floor.rps)].join(' | ')} |`;
}

/** The whole report of one store size, as Markdown. */
export function markdown(title: string, size: SizeReport, writerRate: number): string {
  const valid = size.rows.filter((row) => row.validity.valid);
  const invalid = size.rows.filter((row) => !row.validity.valid);
  const out = [`${title}\n`, header, ...valid.map(tableRow)];
  if (invalid.length > 0) {
    out.push('\nLeft out, invalid (the figures are printed for the record only):\n');
    for (const row of invalid) {
      out.push(`- ${row.scenario}: ${row.validity.reasons.join('; ')}. Measured: ${rate(row.cms.rps)} req/s, bare ${rate(row.bare.rps)}, ${percent(row.ratio)}.`);
    }
  }
  out.push(`\nIdle RSS, after start and seeding, before any load: CMS ${size.idleRssMiB.cms} MiB, bare server ${size.idleRssMiB.bare} MiB.`);
  const floors = valid.filter((row) => row.floor);
  if (floors.length > 0) out.push('\nThe floor server (bench/floor-server.ts), same run:\n', floorHeader, ...floors.map(floorRow));
  out.push('\nAgainst the targets of issue 24:\n', '| target | measured | met |', '|---|---|---|');
  for (const target of targets(writerRate)) {
    const { measured, met } = verdict(target, size.rows);
    out.push(`| ${target.label} | ${measured} | ${met} |`);
  }
  const rss = size.idleRssMiB.cms;
  out.push(`| idle RSS < 120 MiB | ${rss} MiB | ${rss < 120 ? 'met' : 'not met'} |`);
  return out.join('\n') + '\n';
}
