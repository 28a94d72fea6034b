import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RestartPolicy, defaultRestartLimits } from '../../src/cluster/restart-policy.js';

const limits = { maxStartDeaths: 4, firstDelayMs: 100, maxDelayMs: 500, quietMs: 10_000 };

test('deaths in a row wait twice as long each time, up to the most', () => {
  const policy = new RestartPolicy(limits);
  const waits = [0, 1, 2, 3, 4, 5].map((i) => policy.afterDeath({ listened: true, now: 1_000 + i * 600 }));
  assert.deepEqual(waits, [100, 200, 400, 500, 500, 500].map((restartInMs) => ({ restartInMs })));
});

test('workers that die before listening make the primary give up; those that served never do', () => {
  const policy = new RestartPolicy(limits);
  assert.deepEqual(policy.afterDeath({ listened: false, now: 0 }), { restartInMs: 100 });
  assert.deepEqual(policy.afterDeath({ listened: true, now: 100 }), { restartInMs: 200 });
  assert.deepEqual(policy.afterDeath({ listened: false, now: 200 }), { restartInMs: 400 });
  assert.deepEqual(policy.afterDeath({ listened: false, now: 300 }), { restartInMs: 500 });
  assert.deepEqual(policy.afterDeath({ listened: false, now: 400 }), { giveUp: true });
});

test('a quiet period ends the row: the next death waits the least again and starts a new count', () => {
  const policy = new RestartPolicy(limits);
  for (let i = 0; i < 3; i++) policy.afterDeath({ listened: false, now: i });
  assert.deepEqual(policy.afterDeath({ listened: false, now: 20_000 }), { restartInMs: 100 });
  assert.deepEqual(policy.afterDeath({ listened: false, now: 20_001 }), { restartInMs: 200 });
});

test('by default each worker gets three tries at starting', () => {
  const policy = new RestartPolicy(defaultRestartLimits(2));
  const decisions = [0, 1, 2, 3, 4, 5].map((now) => policy.afterDeath({ listened: false, now }));
  assert.deepEqual(decisions.at(-1), { giveUp: true });
  assert.ok(decisions.slice(0, -1).every((decision) => 'restartInMs' in decision));
});
