import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { isoDate, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { upload, uploaded } from '../helpers/media.js';

/** The audit trail through real HTTP: records written with each change, read by admins only. */

const auditUrl = '/api/v1/@cms/audit';

async function records(t: TestApp, query = ''): Promise<any[]> {
  const res = await t.request('GET', `${auditUrl}?perPage=100${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body.results;
}

async function ok(t: TestApp, method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, body: unknown = {}): Promise<any> {
  const res = await t.request(method, url, method === 'DELETE' ? {} : { body });
  assert.equal(res.status, 200, `${method} ${url}: ${res.text}`);
  return res.body;
}

async function login(t: TestApp, username: string, password: string): Promise<number> {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/@cms/login/login', payload: { username, password }, remoteAddress: '203.0.113.7' });
  return res.statusCode;
}

describe('audit trail', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('records every kind of document write, with actor, address, request id and ids', async () => {
    const doc = await ok(t, 'POST', '/api/v1/article?cmsMode=draft', { title: 'First' });
    const id = doc._id as string;
    const docId = doc.cmsDocId as string;
    await ok(t, 'PATCH', `/api/v1/article/${id}`, { title: 'Second' });
    await ok(t, 'PUT', `/api/v1/article/${id}`, { title: 'Third' });
    await ok(t, 'POST', `/api/v1/article/${id}/publish`);
    await ok(t, 'PATCH', `/api/v1/article/${id}`, { title: 'Fourth' });
    await ok(t, 'POST', `/api/v1/article/${id}/revert-draft-to-published`);
    await ok(t, 'PATCH', `/api/v1/article/${id}`, { title: 'Fifth', _publish: true });
    await ok(t, 'POST', `/api/v1/article/${docId}:en:published/revert-published-to-previous`);
    await ok(t, 'POST', `/api/v1/article/${id}/localize`, { toLocale: 'es' });
    await ok(t, 'POST', `/api/v1/article/${id}/share`, { share: true });
    await ok(t, 'POST', `/api/v1/article/${id}/share`, { share: false });
    await ok(t, 'POST', `/api/v1/article/${id}/unpublish`);
    await ok(t, 'PATCH', `/api/v1/article/${id}`, { archived: true });
    await ok(t, 'PATCH', `/api/v1/article/${id}`, { archived: false });
    const res = await t.request('DELETE', `/api/v1/article/${id}`);
    assert.equal(res.status, 200, res.text);

    const found = (await records(t, '&type=article')).reverse();
    assert.deepEqual(
      found.map((record) => record.action),
      [
        'document.insert',
        'document.patch',
        'document.replace',
        'document.publish',
        'document.patch',
        'document.revert',
        'document.patch',
        'document.publish',
        'document.revertPublished',
        'document.localize',
        'document.share',
        'document.unshare',
        'document.unpublish',
        'document.archive',
        'document.restore',
        'document.delete',
      ],
    );
    for (const record of found) {
      assert.match(record.id, /^\w+$/);
      assert.match(record.at, isoDate);
      assert.deepEqual(record.actor, { kind: 'apiKey', _id: null, username: null, title: 'System Task', role: 'admin' });
      assert.equal(record.address, '127.0.0.1');
      assert.equal(typeof record.requestId, 'string');
      assert.ok(record.requestId.length > 0);
      assert.equal(record.type, 'article');
      assert.equal(record.ids[0], docId);
    }
    assert.deepEqual(found[0].ids, [docId, id]);
    assert.deepEqual(found[0].detail, { locale: 'en', mode: 'draft' });
    assert.equal(found[9].detail.locale, 'es');
    // One request, one id: no two requests share one.
    assert.equal(new Set(found.map((record) => record.requestId)).size, found.length - 1, 'the _publish PATCH wrote two records');
  });

  it('leaves no record for a refused write (400, 412, 403, 404)', async () => {
    const doc = await ok(t, 'POST', '/api/v1/article', { title: 'Refusals' });
    const before = (await t.request('GET', auditUrl)).body.results.length;
    const total = async () => (await t.request('GET', `${auditUrl}?perPage=1`)).body.pages;
    const count = await total();
    assert.equal((await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { priority: 1000 } })).status, 400);
    assert.equal((await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { title: 'x' }, headers: { 'if-match': '"nope"' } })).status, 412);
    assert.equal((await t.request('PATCH', `/api/v1/article/${doc._id}`, { body: { title: 'x' }, key: 'guest' })).status, 403);
    assert.equal((await t.request('DELETE', '/api/v1/article/nosuchdocument0000000000')).status, 404);
    assert.equal((await t.request('POST', '/api/v1/article', { body: { priority: 'high' } })).status, 400);
    assert.equal(await total(), count);
    assert.equal((await t.request('GET', auditUrl)).body.results.length, before);
  });

  it('rolls its record back with a write refused after the record was appended', async () => {
    const doc = await ok(t, 'POST', '/api/v1/article', { title: 'Published' });
    const count = (await t.request('GET', `${auditUrl}?perPage=1`)).body.pages;
    // A delete writes its record first; a contributor's delete of a published document's draft is then refused.
    const refused = await t.request('DELETE', `/api/v1/article/${doc.cmsDocId}:en:draft`, { key: 'contributor' });
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await t.request('GET', `${auditUrl}?perPage=1`)).body.pages, count);
    assert.deepEqual(await records(t, '&action=document.delete&since=' + encodeURIComponent(doc.createdAt)), []);
  });

  it('records user and role changes, logins, failed logins and logouts, never a secret', async () => {
    const user = await ok(t, 'POST', '/api/v1/@cms/user', { title: 'Ada', username: 'ada', password: 'ada-password-1', role: 'contributor' });
    await ok(t, 'PATCH', `/api/v1/@cms/user/${user._id}`, { role: 'editor' });
    assert.equal(await login(t, 'ada', 'ada-password-1'), 200);
    assert.equal(await login(t, 'ada', 'wrong-password-1'), 400);
    assert.equal(await login(t, 'nobody-secret-typed-here', 'whatever-password'), 400);

    const userRecords = (await records(t, '&type=%40cms%2Fuser')).reverse();
    assert.deepEqual(userRecords.map((record) => [record.action, record.detail.role]), [['document.insert', 'contributor'], ['document.patch', 'editor']]);
    const logins = (await records(t, '&actor=ada')).reverse();
    assert.deepEqual(logins.map((record) => record.action), ['login']);
    assert.deepEqual(logins[0].actor, { kind: 'user', _id: user._id, username: 'ada', title: null, role: null });
    assert.equal(logins[0].address, '203.0.113.7');
    assert.deepEqual((await records(t, `&actor=${user._id}`)).map((record) => record.action), ['login']);
    const failed = (await records(t, '&action=login.failed')).reverse();
    assert.equal(failed.length, 2);
    assert.deepEqual(failed[0].ids, [user._id]);
    assert.deepEqual(failed[1].ids, []);
    assert.equal(failed[0].actor.kind, 'anonymous');

    const everything = JSON.stringify(await records(t));
    for (const secret of ['ada-password-1', 'wrong-password-1', 'nobody-secret-typed-here', 'test-admin-key', 'passwordHash', 'scrypt']) {
      assert.ok(!everything.includes(secret), `no record holds ${secret}`);
    }
  });

  it('records an upload, and not a refused one', async () => {
    const file = await uploaded(t, 'Notes.txt', 'plain text');
    assert.equal((await upload(t, 'empty.txt', '')).status, 400);
    assert.equal((await upload(t, 'by-a-guest.txt', 'text', { key: 'guest' })).status, 403);
    const uploads = await records(t, '&action=attachment.upload');
    assert.deepEqual(uploads.map((record) => [record.ids, record.detail, record.address]), [[[file._id], { name: 'notes', extension: 'txt', length: 10 }, '127.0.0.1']]);
  });

  it('filters by type, action and time, newest first, a page at a time', async () => {
    const all = await records(t);
    assert.ok(all.length >= 10);
    const times = all.map((record) => record.at);
    assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
    const page = await t.request('GET', `${auditUrl}?perPage=3&page=2`);
    assert.equal(page.status, 200);
    assert.equal(page.body.currentPage, 2);
    assert.equal(page.body.pages, Math.ceil(all.length / 3));
    assert.deepEqual(page.body.results.map((record: any) => record.id), all.slice(3, 6).map((record) => record.id));
    const capped = await t.request('GET', `${auditUrl}?perPage=100000`);
    assert.equal(capped.status, 200);
    assert.ok(capped.body.results.length <= 100);
    assert.deepEqual((await records(t, '&action=document.publish')).map((record) => record.action).filter((action) => action !== 'document.publish'), []);
    assert.deepEqual(await records(t, '&type=note'), []);
    const middle = all[Math.floor(all.length / 2)].at;
    const since = await records(t, `&since=${encodeURIComponent(middle)}`);
    assert.ok(since.every((record) => record.at >= middle) && since.length > 0);
    const until = await records(t, `&until=${encodeURIComponent(middle)}`);
    assert.ok(until.every((record) => record.at < middle));
    assert.equal(since.length + until.length, all.length);
    assert.deepEqual(await records(t, '&since=2999-01-01T00:00:00Z'), []);
    assert.equal((await records(t, '&since=2000-01-01')).length, all.length);
    for (const query of ['since=yesterday', 'until=2026-13-45T00:00:00Z', 'since=1e9', 'page=0', 'perPage=-1', 'page=abc', 'action=', `actor=${'x'.repeat(201)}`, 'type=a&type=b']) {
      const res = await t.request('GET', `${auditUrl}?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.name, 'invalid');
    }
  });

  it('is for admins only, and append-only through the API', async () => {
    for (const key of ['editor', 'contributor', 'guest', null] as const) {
      const res = await t.request('GET', auditUrl, { key });
      assert.equal(res.status, 403, String(key));
      assert.equal(res.body.name, 'forbidden');
    }
    const first = (await records(t))[0];
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await t.request(method, auditUrl, { body: {} });
      assert.equal(res.status, 404, method);
      assert.equal((await t.request(method, `${auditUrl}/${first.id}`, { body: {} })).status, 404);
    }
    assert.equal((await records(t))[0].id, first.id);
  });
});

describe('audit retention', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp(testConfig(), { CMS_LIMIT_AUDIT_KEEP_RECORDS: '3', CMS_LIMIT_AUDIT_PRUNE_SECONDS: '1' });
  });
  after(async () => {
    await t.close();
  });

  it('keeps only the newest records the limits allow, pruned in the background', async () => {
    for (let i = 0; i < 6; i++) await ok(t, 'POST', '/api/v1/article', { title: `Story ${i}` });
    const deadline = Date.now() + 5_000;
    let left: any[] = [];
    for (;;) {
      left = await records(t);
      if (left.length <= 3 || Date.now() > deadline) break;
      await sleep(100);
    }
    assert.equal(left.length, 3);
    const articles = (await t.request('GET', '/api/v1/article?perPage=10')).body.results.map((doc: any) => doc.cmsDocId);
    assert.deepEqual(left.map((record) => record.ids[0]), articles.slice(0, 3), 'the newest stay');
  });
});
