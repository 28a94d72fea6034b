import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createProgress } from '../../src/cli/progress.js';

/** A stderr that keeps what is written, a terminal or not, and a clock the test moves. */
function harness(isTTY: boolean) {
  const written: string[] = [];
  const stderr = Object.assign(
    new Writable({
      write(chunk, _encoding, callback) {
        written.push(String(chunk));
        callback();
      },
    }),
    { isTTY },
  );
  const clock = { ms: 0 };
  return { written, stderr, clock, now: () => clock.ms };
}

describe('progress display', () => {
  it('redraws one terminal line with a bar, count/total, rate and ETA, at most every 100 ms', () => {
    const { written, stderr, clock, now } = harness(true);
    const stage = createProgress({ stderr }, { quiet: false, now }).stage('documents', { total: 200 });
    clock.ms = 1000;
    stage.add(50);
    clock.ms = 1050;
    stage.add(10);
    assert.deepEqual(written, ['\rdocuments [######------------------] 50/200 25%  50/s  ETA 3 s\x1b[K']);
    clock.ms = 2000;
    stage.add(140);
    stage.done();
    assert.equal(written.length, 3);
    assert.equal(written[2], '\rdocuments: 200/200 in 2.0 s\x1b[K\n');
  });

  it('writes plain lines to a log: at each tenth (once a second at most) or every 5 s, sizes for bytes', () => {
    const { written, stderr, clock, now } = harness(false);
    const stage = createProgress({ stderr }, { quiet: false, now }).stage('files', { total: 10_000_000, unit: 'bytes' });
    clock.ms = 500;
    stage.add(2_000_000);
    assert.deepEqual(written, [], 'not within the first second');
    clock.ms = 1500;
    stage.add(500_000);
    assert.deepEqual(written, ['files [######------------------] 2.5 MB/10.0 MB 25%  1.7 MB/s  ETA 5 s\n']);
    clock.ms = 2000;
    stage.add(0);
    assert.equal(written.length, 1, 'no new tenth, no new line');
    const unknown = createProgress({ stderr }, { quiet: false, now }).stage('users');
    clock.ms = 8000;
    unknown.add(7);
    assert.equal(written.at(-1), 'users: 7  1/s\n');
    unknown.done();
    assert.equal(written.at(-1), 'users: 7 in 6.0 s\n');
  });

  it('writes nothing when quiet', () => {
    const { written, stderr } = harness(true);
    const stage = createProgress({ stderr }, { quiet: true }).stage('documents', { total: 3 });
    stage.add(3);
    stage.done();
    assert.deepEqual(written, []);
  });
});
