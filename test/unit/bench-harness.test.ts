import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWrkOutput, summarize, type LoadResult } from '../../bench/wrk.js';
import { judge } from '../../bench/validity.js';
import { cpusBusySeconds, parseCpuList } from '../../bench/cpu.js';
import { targets, verdict, type Row } from '../../bench/report.js';
import { draftPaths } from '../../bench/scenarios.js';
import { cmsFirst, pairedFigures, rowDone, type Pair } from '../../bench/pairs.js';

/** What wrk prints with bench/wrk-requests.lua: its own report, then the `done` hook's line. */
const wrkOutput = [
  'Running 10s test @ http://127.0.0.1:40000/api/v1/article',
  '  1 threads and 50 connections',
  '  Thread Stats   Avg      Stdev     Max   +/- Stdev',
  '    Latency     2.10ms    1.01ms  30.00ms   90.00%',
  '  200000 requests in 10.00s, 2.00GB read',
  '  Non-2xx or 3xx responses: 3',
  'Requests/sec:  20000.00',
  'BENCH-WRK-RESULT {"requests":200000,"durationUs":10000000,"bytes":2000000000,' +
    '"errors":{"connect":0,"read":1,"write":0,"status":3,"timeout":2},' +
    '"latencyUs":{"p50":1800,"p90":3000,"p99":12500,"p999":25000,"mean":2100.0,"max":30000}}',
  '',
].join('\n');

test("wrk's result line gives req/s, latency in ms and errors by kind", () => {
  assert.deepEqual(summarize(parseWrkOutput(wrkOutput)), { rps: 20000, p50: 1.8, p99: 12.5, statusErrors: 3, socketErrors: 3, total: 200000 });
});

test('wrk output without the result line is an error quoting it', () => {
  assert.throws(() => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused\n'), /no result line[\s\S]*Connection refused/);
});

const result = (overrides: Partial<LoadResult>): LoadResult => ({
  rps: 20000, p50: 1, p99: 5, statusErrors: 0, socketErrors: 0, total: 200000, loadCpu: 60, serverCpu: 99, othersOnServerCpus: 1, ...overrides,
});

test('a row counts when the bare server kept its core busy, nothing else took that core and nothing failed', () => {
  assert.deepEqual(judge({ cms: result({}), bare: result({}) }), { valid: true, reasons: [] });
});

test('a row whose bare server did not keep its core busy is invalid, and says why', () => {
  const verdict = judge({ cms: result({}), bare: result({ serverCpu: 70, loadCpu: 100 }) });
  assert.equal(verdict.valid, false);
  assert.match(verdict.reasons.join(), /bare server used 70% of its core \(< 90%; wrk 100%\)/);
});

test('a row is invalid when other processes took the server core, when answers failed, or when the writer fell short', () => {
  assert.match(judge({ cms: result({ othersOnServerCpus: 25 }), bare: result({}) }).reasons.join(), /other processes took 25% of the server's CPU during the CMS run/);
  assert.match(judge({ cms: result({ statusErrors: 2, socketErrors: 1 }), bare: result({}) }).reasons.join(), /CMS run had 3 errors in 200000 answers \(2 status ≥ 400, 1 socket\)/);
  assert.match(judge({ cms: result({}), bare: result({}), writer: { planned: 100, ok: 60, failed: 0 } }).reasons.join(), /writer .* made 60 writes of 100 planned/);
  assert.equal(judge({ cms: result({}), bare: result({}), writer: { planned: 100, ok: 99, failed: 0 } }).valid, true);
});

test("a CMS that idled is invalid only while other processes crowded wrk's CPU", () => {
  assert.match(judge({ cms: result({ serverCpu: 70, othersOnLoadCpus: 40 }), bare: result({}) }).reasons.join(), /CMS used 70% of its core while other processes took 40% of wrk's CPU/);
  assert.equal(judge({ cms: result({ serverCpu: 70, othersOnLoadCpus: 2 }), bare: result({}) }).valid, true, 'waiting on its disk is its own');
  assert.equal(judge({ cms: result({ serverCpu: 99, othersOnLoadCpus: 80 }), bare: result({}) }).valid, true, 'a busy server was the limit');
});

test('CPU lists read as taskset and /proc write them', () => {
  assert.deepEqual(parseCpuList('0-2,5'), [0, 1, 2, 5]);
  assert.deepEqual(parseCpuList('1\n'), [1]);
  assert.throws(() => parseCpuList('a-b'), /not a CPU list/);
});

test("a CPU's busy time from /proc/stat counts all but idle and iowait", () => {
  const stat = 'cpu  10 0 0 0 0 0 0 0 0 0\ncpu0 100 1 20 500 7 2 3 4 0 0\ncpu1 50 0 10 900 0 0 0 0 0 0\n';
  const perSecond = cpusBusySeconds([0], 'cpu0 100 0 0 0 0 0 0 0 0 0\n');
  assert.equal(cpusBusySeconds([0], stat), 130 * perSecond / 100);
  assert.equal(cpusBusySeconds([0, 1], stat), 190 * perSecond / 100);
});

test('a target is met only when every row it reads was measured validly and meets it', () => {
  const row = (scenario: string, ratio: number, valid = true): Row => ({
    scenario, request: '', status: 200, cms: result({}), bare: result({}), ratio, validity: { valid, reasons: valid ? [] : ['x'] }, pairs: [{ ratio, valid }],
  });
  const list = targets(10).find((target) => target.label.startsWith('cached anonymous list'))!;
  assert.equal(verdict(list, [row('list', 0.7), row('list-page-1', 0.65)]).met, 'met');
  assert.equal(verdict(list, [row('list', 0.7), row('list-page-1', 0.5)]).met, 'not met');
  assert.equal(verdict(list, [row('list', 0.7), row('list-page-1', 0.9, false)]).met, 'no valid measurement');
  assert.equal(verdict(list, [row('list', 0.7)]).met, 'no valid measurement');
});

test('the write rows take at most 5,000 drafts, spread evenly over the store, each once', () => {
  const ids = Array.from({ length: 100_000 }, (_, i) => `id${i}`);
  const paths = draftPaths(ids);
  assert.equal(paths.length, 5000);
  assert.equal(new Set(paths).size, 5000);
  assert.equal(paths[0], '/api/v1/article/id0:en:draft');
  assert.equal(paths[1], '/api/v1/article/id20:en:draft');
  assert.equal(paths.at(-1), '/api/v1/article/id99980:en:draft');
  assert.deepEqual(draftPaths(['a', 'b']), ['/api/v1/article/a:en:draft', '/api/v1/article/b:en:draft'], 'fewer: all');
});

const pair = (ratio: number, overrides: { valid?: boolean; bareCpu?: number } = {}): Pair => {
  const valid = overrides.valid ?? true;
  return { cms: result({ rps: ratio * 20000 }), bare: result({ serverCpu: overrides.bareCpu ?? 99 }), ratio, validity: { valid, reasons: valid ? [] : [`pair ${ratio} disturbed`] } };
};

test('the rounds alternate which server goes first: CMS–bare, bare–CMS, CMS–bare', () => {
  assert.deepEqual([0, 1, 2, 3].map(cmsFirst), [true, false, true, false]);
});

test('a row reports the pair with the median ratio of its valid pairs, the lower middle one when even', () => {
  const row = pairedFigures([pair(0.9), pair(0.5), pair(0.7)], 3);
  assert.equal(row.ratio, 0.7);
  assert.equal(row.cms.rps, 14000, "the figures are that pair's own");
  assert.equal(row.validity.valid, true);
  assert.deepEqual(row.pairs, [{ ratio: 0.9, valid: true }, { ratio: 0.5, valid: true }, { ratio: 0.7, valid: true }], 'in the order measured');
  assert.equal(pairedFigures([pair(0.9), pair(0.5)], 2).ratio, 0.5);
  assert.equal(pairedFigures([pair(0.9), pair(0.2, { valid: false }), pair(0.6)], 3).ratio, 0.6, 'invalid pairs take no part');
});

test('a row with fewer valid pairs than a majority of its rounds is invalid, showing the least disturbed pair', () => {
  const row = pairedFigures([pair(0.9, { valid: false, bareCpu: 70 }), pair(0.5, { valid: false, bareCpu: 85 }), pair(0.7)], 3);
  assert.equal(row.validity.valid, false);
  assert.equal(row.ratio, 0.7, 'the valid one: its bare server was busiest');
  assert.deepEqual(row.validity.reasons, ['1 of 3 pairs valid, 2 needed']);
  const none = pairedFigures([pair(0.9, { valid: false, bareCpu: 70 }), pair(0.5, { valid: false, bareCpu: 85 })], 1);
  assert.equal(none.ratio, 0.5);
  assert.deepEqual(none.validity.reasons, ['0 of 2 pairs valid, 1 needed', 'pair 0.5 disturbed']);
  assert.throws(() => pairedFigures([], 3), /at least one pair/);
});

test('a row measures until it has a valid pair per round, or rounds × attempts pairs in all', () => {
  assert.equal(rowDone([pair(0.5), pair(0.6)], 3, 2), false);
  assert.equal(rowDone([pair(0.5), pair(0.6), pair(0.7)], 3, 2), true);
  const invalid = pair(0.5, { valid: false });
  assert.equal(rowDone([invalid, pair(0.6), pair(0.7)], 3, 2), false, 'an invalid pair is measured again');
  assert.equal(rowDone([invalid, invalid, invalid, invalid, invalid, pair(0.7)], 3, 2), true, 'up to 6');
  assert.equal(rowDone([invalid, invalid, invalid], 3, 1), true);
});
