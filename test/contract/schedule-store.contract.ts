import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NewSchedule, StorageAdapter } from '../../src/storage/storage-adapter.js';

// A time in the future of today, so that real clocks play no part.
const t0 = Date.UTC(2030, 0, 1);
const lease = 10_000;

function schedule(docId: string, dueAt: number, action: 'publish' | 'unpublish' = 'publish'): NewSchedule {
  return { versionId: `${docId}:en:draft`, action, type: 'article', docId, locale: 'en', dueAt, by: '{"kind":"apiKey"}' };
}

/** What the scheduler relies on: due schedules claimed atomically, a run that commits only for its claim. */
export function describeScheduleStoreContract(adapterOf: () => StorageAdapter): void {
  describe('schedule store', () => {
    const claim = (token: string, now = t0, limit = 10) => adapterOf().schedules.claimDue({ now, leaseMs: lease, token, limit });

    it('claims the due pending schedules, earliest first, each to one claimer until its lease ends', async () => {
      const store = adapterOf().schedules;
      await store.put(schedule('late', t0 - 10));
      await store.put(schedule('early', t0 - 20));
      await store.put(schedule('early', t0 - 5, 'unpublish'));
      await store.put(schedule('future', t0 + 1));
      const first = await claim('one');
      assert.deepEqual(first.map((s) => [s.docId, s.action, s.attempts, s.status]), [
        ['early', 'publish', 1, 'pending'],
        ['late', 'publish', 1, 'pending'],
        ['early', 'unpublish', 1, 'pending'],
      ]);
      assert.deepEqual(first[0], { ...schedule('early', t0 - 20), status: 'pending', attempts: 1, unreviewedChange: null });
      assert.deepEqual(await claim('two'), [], 'leased to the first claimer');
      // Once the lease ran out, another claimer takes them, counting another attempt.
      const again = await claim('two', t0 + lease);
      assert.deepEqual(again.map((s) => [s.docId, s.attempts]), [['early', 2], ['late', 2], ['early', 2], ['future', 1]]);
      // The first claim no longer holds: its run commits nothing.
      assert.equal(await store.complete(schedule('early', 0), 'one'), null);
      assert.deepEqual(await store.complete(schedule('early', 0), 'two'), { ...schedule('early', t0 - 20), status: 'pending', attempts: 2, unreviewedChange: null });
      assert.equal(await store.fail(schedule('late', 0), 'two'), true);
      assert.equal(await store.complete(schedule('late', 0), 'two'), null, 'a failed schedule is no longer claimed');
      // A failed schedule is never claimed again; putting it again makes it pending, unclaimed.
      assert.deepEqual((await claim('three', t0 + 3 * lease)).map((s) => s.docId), ['early', 'future']);
      await store.put(schedule('late', t0 + 5));
      const renewed = await claim('four', t0 + 5);
      assert.deepEqual(renewed.map((s) => [s.docId, s.status, s.attempts]), [['late', 'pending', 1]]);
      for (const key of [schedule('late', 0), schedule('early', 0, 'unpublish'), schedule('future', 0)]) assert.equal(await store.remove(key), true);
      assert.equal(await store.remove(schedule('late', 0)), false);
      assert.deepEqual(await claim('five', t0 + 10 * lease), []);
    });

    it('tells by a read whether a claim would take anything: due, pending and unleased', async () => {
      const store = adapterOf().schedules;
      assert.equal(await store.anyDue(t0), false, 'nothing scheduled');
      await store.put(schedule('peek', t0 + 1));
      assert.equal(await store.anyDue(t0), false, 'not due yet');
      assert.equal(await store.anyDue(t0 + 1), true);
      assert.equal((await claim('one', t0 + 1)).length, 1);
      assert.equal(await store.anyDue(t0 + 1), false, 'leased');
      assert.equal(await store.anyDue(t0 + 1 + lease), true, 'the lease ran out');
      assert.equal(await store.fail(schedule('peek', 0), 'one'), true);
      assert.equal(await store.anyDue(t0 + 1 + lease), false, 'failed');
      assert.equal(await store.remove(schedule('peek', 0)), true);
    });

    it('restores a failed schedule as failed: never claimed', async () => {
      const store = adapterOf().schedules;
      await store.put(schedule('restored', t0 - 1), 'failed');
      assert.deepEqual(await claim('one'), []);
      await store.put(schedule('restored', t0 - 1));
      assert.deepEqual((await claim('two')).map((s) => [s.docId, s.status]), [['restored', 'pending']]);
      assert.equal(await store.remove(schedule('restored', 0)), true);
    });

    it('keeps the latest unreviewed change, claimed or not, until it is cleared or the schedule put again', async () => {
      const store = adapterOf().schedules;
      const key = schedule('review', t0);
      assert.equal(await store.setUnreviewedChange(key, '{"n":1}'), false, 'no such schedule');
      await store.put(key);
      assert.equal(await store.setUnreviewedChange(key, '{"n":1}'), true);
      assert.equal(await store.setUnreviewedChange({ ...key, action: 'unpublish' }, '{"n":1}'), false, 'one action only');
      const [claimed] = await claim('one');
      assert.equal(claimed?.unreviewedChange, '{"n":1}');
      // Set while claimed: the run's completion answers it.
      assert.equal(await store.setUnreviewedChange(key, '{"n":2}'), true);
      assert.equal((await store.complete(key, 'one'))?.unreviewedChange, '{"n":2}');
      await store.put(key);
      await store.setUnreviewedChange(key, '{"n":3}');
      await store.setUnreviewedChange(key, null);
      assert.equal((await claim('two'))[0]?.unreviewedChange, null, 'cleared');
      await store.setUnreviewedChange(key, '{"n":4}');
      await store.put(key);
      assert.equal((await claim('three', t0 + lease))[0]?.unreviewedChange, null, 'put again: none');
      assert.equal(await store.remove(key), true);
    });

    it('answers the soonest pending schedules of the types and locale asked, failed ones and others left out', async () => {
      const store = adapterOf().schedules;
      const other = (docId: string, dueAt: number, change: Partial<NewSchedule>): NewSchedule => ({ ...schedule(docId, dueAt), ...change });
      await store.put(schedule('soon-b', t0 + 30));
      await store.put(schedule('soon-a', t0 + 30, 'unpublish'));
      await store.put(schedule('soon-a', t0 + 20));
      await store.put(schedule('soon-c', t0 + 40));
      await store.put(schedule('soon-failed', t0 + 10), 'failed');
      await store.put(other('soon-note', t0 + 5, { type: 'note', versionId: 'soon-note:en:draft' }));
      await store.put(other('soon-fr', t0 + 5, { locale: 'fr', versionId: 'soon-fr:fr:draft' }));
      const soonest = (types: string[], limit = 10) => store.soonestPending({ types, locale: 'en', limit });
      // Ties on the time go by draft id, then action.
      assert.deepEqual((await soonest(['article'])).map((s) => [s.docId, s.action, s.dueAt - t0]), [
        ['soon-a', 'publish', 20],
        ['soon-a', 'unpublish', 30],
        ['soon-b', 'publish', 30],
        ['soon-c', 'publish', 40],
      ]);
      assert.deepEqual((await soonest(['article', 'note'], 2)).map((s) => s.docId), ['soon-note', 'soon-a']);
      assert.deepEqual(await soonest(['note', 'nothing']), [{ ...other('soon-note', t0 + 5, { type: 'note', versionId: 'soon-note:en:draft' }), status: 'pending', attempts: 0, unreviewedChange: null }]);
      assert.deepEqual(await soonest([]), []);
      for (const key of [schedule('soon-b', 0), schedule('soon-a', 0, 'unpublish'), schedule('soon-a', 0), schedule('soon-c', 0), schedule('soon-failed', 0)]) {
        assert.equal(await store.remove(key), true);
      }
      assert.equal(await store.remove({ versionId: 'soon-note:en:draft', action: 'publish' }), true);
      assert.equal(await store.remove({ versionId: 'soon-fr:fr:draft', action: 'publish' }), true);
    });

    it('gives each due schedule to one of several claimers at once', async () => {
      const store = adapterOf().schedules;
      for (let i = 0; i < 20; i++) await store.put(schedule(`race${i}`, t0));
      const claims = await Promise.all(['a', 'b', 'c', 'd'].map((token) => claim(token, t0, 7)));
      const ids = claims.flat().map((s) => s.docId);
      assert.equal(ids.length, 20);
      assert.equal(new Set(ids).size, 20);
      for (let i = 0; i < 20; i++) await store.remove(schedule(`race${i}`, 0));
    });
  });
}
