import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadAppConfig } from '../../src/load-app-config.js';
import { cheapPasswordHasher, signedInUser, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/** Issue 38 part 2: review stages before publishing, comments, approve links. */
describe('review: stages, comments and approve links', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startReceiver();
    const config = testConfig() as { modules: Record<string, { options: Record<string, unknown> }>; webhooks?: unknown };
    config.modules.article!.options.review = true;
    config.webhooks = [{ url: receiver.url, secret: 's'.repeat(32), types: ['article'], events: ['review.stage', 'review.comment'] }];
    t = await startTestApp(config, { CMS_LIMIT_WEBHOOK_POLL_INTERVAL: '100' }, { passwordHasher: cheapPasswordHasher() });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  async function newDraft(title: string): Promise<string> {
    const made = await t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title, category: 'c' }, key: 'contributor' });
    assert.equal(made.status, 200, made.text);
    return made.body._id as string;
  }
  const move = (id: string, body: unknown, key: 'admin' | 'editor' | 'contributor' | 'guest' | null = 'editor') =>
    t.request('POST', `/api/v1/article/${id}/review`, { body, key });

  it('a new draft starts at the first stage; stages move per role; unknown stage 400', async () => {
    const id = await newDraft('Staged');
    const read = await t.request('GET', `/api/v1/article/${id}`, { key: 'contributor' });
    assert.equal(read.body.cmsReview.stage, 'draft');
    assert.deepEqual(read.body.cmsReview.reviewers, []);
    const review = await move(id, { stage: 'in review' }, 'contributor');
    assert.equal(review.status, 200, review.text);
    assert.equal(review.body.cmsReview.stage, 'in review');
    const refused = await move(id, { stage: 'approved' }, 'contributor');
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await move(id, { stage: 'in review' }, 'guest')).status, 403);
    const unknown = await move(id, { stage: 'nowhere' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.name, 'invalid');
    const approved = await move(id, { stage: 'approved' });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.cmsReview.stage, 'approved');
  });

  it('publishing refuses a draft before publishFrom: 409 naming both stages; then publishes once approved', async () => {
    const id = await newDraft('Blocked');
    await move(id, { stage: 'in review' });
    const refused = await t.request('POST', `/api/v1/article/${id}/publish`, { key: 'editor' });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.name, 'conflict');
    assert.match(refused.body.message, /"in review".*"approved"/);
    assert.deepEqual(refused.body.data, { stage: 'in review', required: 'approved' });
    const viaPatch = await t.request('PATCH', `/api/v1/article/${id}`, { body: { title: 'Blocked 2', _publish: true }, key: 'editor' });
    assert.equal(viaPatch.status, 409, viaPatch.text);
    // Nothing changed: still the old title.
    assert.equal((await t.request('GET', `/api/v1/article/${id}`)).body.title, 'Blocked');
    await move(id, { stage: 'approved' });
    const published = await t.request('POST', `/api/v1/article/${id}/publish`, { key: 'editor' });
    assert.equal(published.status, 200, published.text);
    assert.equal('cmsReview' in published.body, false, 'the published version has no review');
    // Anonymous never sees the stage, nor the filter.
    const anonymous = await t.request('GET', `/api/v1/article/${id.replace(':draft', ':published')}`, { key: null });
    assert.equal(anonymous.status, 200, anonymous.text);
    assert.equal('cmsReview' in anonymous.body, false);
    assert.notEqual((await t.request('GET', '/api/v1/article?reviewStage=approved&cmsMode=draft', { key: null })).status, 200);
  });

  it('a content change after approval goes back to the stage before publishFrom; the list filters by stage', async () => {
    const id = await newDraft('Changed');
    await move(id, { stage: 'approved' });
    const bookkeeping = await t.request('PATCH', `/api/v1/article/${id}`, { body: { title: 'Changed' }, key: 'editor' });
    assert.equal(bookkeeping.body.cmsReview.stage, 'approved', 'no content change: the stage stays');
    const changed = await t.request('PATCH', `/api/v1/article/${id}`, { body: { title: 'Changed again' }, key: 'contributor' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.cmsReview.stage, 'in review');
    const list = await t.request('GET', `/api/v1/article?cmsMode=draft&reviewStage=${encodeURIComponent('in review')}`);
    assert.equal(list.status, 200, list.text);
    assert.ok(list.body.results.some((doc: { _id: string }) => doc._id === id));
    assert.ok(list.body.results.every((doc: { cmsReview: { stage: string } }) => doc.cmsReview.stage === 'in review'));
    assert.equal((await t.request('GET', '/api/v1/article?cmsMode=draft&reviewStage=nowhere')).status, 400);
  });

  it('comments on the whole draft or a field, resolved, in the history; webhooks and audit records', async () => {
    const id = await newDraft('Commented');
    const whole = await t.request('POST', `/api/v1/article/${id}/comments`, { body: { body: 'Looks good' }, key: 'contributor' });
    assert.equal(whole.status, 201, whole.text);
    assert.equal(whole.body.field, null);
    const onField = await t.request('POST', `/api/v1/article/${id}/comments`, { body: { body: 'Shorter?', field: 'title' } });
    assert.equal(onField.status, 201, onField.text);
    assert.equal(onField.body.field, 'title');
    for (const body of [{ body: 'x', field: 'nope' }, { body: '' }, { body: 5 }, { body: 'x', field: '__proto__' }, { body: 'x', extra: 1 }, []]) {
      const refused = await t.request('POST', `/api/v1/article/${id}/comments`, { body });
      assert.equal(refused.status, 400, JSON.stringify(body));
    }
    const resolved = await t.request('PATCH', `/api/v1/article/${id}/comments/${onField.body._id}`, { body: { resolved: true } });
    assert.equal(resolved.status, 200, resolved.text);
    assert.equal(resolved.body.resolved, true);
    assert.equal((await t.request('PATCH', `/api/v1/article/${id}/comments/nope`, { body: { resolved: true } })).status, 404);
    const listed = await t.request('GET', `/api/v1/article/${id}/comments`);
    assert.deepEqual(listed.body.results.map((c: { body: string; resolved: boolean }) => [c.body, c.resolved]), [['Looks good', false], ['Shorter?', true]]);
    assert.equal((await t.request('GET', `/api/v1/article/${id}/comments`, { key: 'guest' })).status, 403);
    await move(id, { stage: 'in review' });
    const history = await t.request('GET', `/api/v1/article/${id}/history`);
    const actions = history.body.results.map((entry: { action: string }) => entry.action);
    assert.ok(actions.includes('review.comment') && actions.includes('review.stage'), actions.join());
    const audit = await t.request('GET', '/api/v1/@cms/audit', { key: 'admin' });
    const audited = audit.body.results.map((record: { action: string }) => record.action);
    assert.ok(audited.includes('review.comment') && audited.includes('review.stage'), audited.join());
    const events = () => receiver.received.map((hook) => hook.payload.event as string);
    for (let i = 0; i < 100 && !events().includes('review.comment'); i++) await sleep(50);
    const comments = receiver.received.filter((hook) => hook.payload.event === 'review.comment' && hook.payload._id === id);
    assert.equal(comments.length, 3, events().join());
    assert.equal(comments[0]!.payload.document.cmsReviewEvent.body, 'Looks good');
    assert.ok(events().includes('review.stage'));
  });

  it('approve link: approves once, anonymous; expired, forged, reused or changed: 4xx and nothing changes', async () => {
    const id = await newDraft('Linked');
    await move(id, { stage: 'in review' });
    assert.equal((await t.request('POST', `/api/v1/article/${id}/review-link`, { body: {}, key: 'contributor' })).status, 403);
    const link = await t.request('POST', `/api/v1/article/${id}/review-link`, { body: {} });
    assert.equal(link.status, 201, link.text);
    const forged = await t.request('GET', `/api/v1/@cms/review/approve?type=article&id=${id}&key=${'x'.repeat(43)}`, { key: null });
    assert.equal(forged.status, 404);
    const approved = await t.request('GET', link.body.url, { key: null });
    assert.equal(approved.status, 200, approved.text);
    assert.deepEqual(approved.body, { approved: true, stage: 'approved' });
    assert.equal((await t.request('GET', `/api/v1/article/${id}`)).body.cmsReview.stage, 'approved');
    const reused = await t.request('POST', '/api/v1/@cms/review/approve', { body: { type: 'article', id, key: link.body.key }, key: null });
    assert.equal(reused.status, 409);
    // Changed since the link was made.
    await move(id, { stage: 'in review' });
    const second = await t.request('POST', `/api/v1/article/${id}/review-link`, { body: {} });
    await t.request('PATCH', `/api/v1/article/${id}`, { body: { title: 'Linked, changed' } });
    assert.equal((await t.request('GET', second.body.url, { key: null })).status, 409);
    // Expired.
    const short = await t.request('POST', `/api/v1/article/${id}/review-link`, { body: { expiresIn: 1 } });
    await sleep(1100);
    const expired = await t.request('GET', short.body.url, { key: null });
    assert.equal(expired.status, 410, expired.text);
    assert.equal((await t.request('GET', `/api/v1/article/${id}`)).body.cmsReview.stage, 'in review');
  });

  it('a published insert of a reviewed type is refused: its draft starts at the first stage', async () => {
    const refused = await t.request('POST', '/api/v1/article', { body: { title: 'Straight out' }, key: 'editor' });
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(refused.body.data, { stage: 'draft', required: 'approved' });
  });

  it('the dashboard: "needs my review" lists the drafts in review assigned to me, or unassigned ones for publishers', async () => {
    const rita = await signedInUser(t, 'rita', 'contributor');
    const eddy = await signedInUser(t, 'eddy', 'editor');
    const assigned = await newDraft('For Rita');
    const unassigned = await newDraft('For anyone');
    const early = await newDraft('Still a draft');
    assert.equal((await move(assigned, { stage: 'in review', reviewers: [rita.id] })).status, 200);
    assert.equal((await move(unassigned, { stage: 'in review' })).status, 200);
    assert.equal((await move(early, { reviewers: [rita.id] })).status, 200);
    const of = async (user: typeof rita) => {
      const res = await t.request('GET', '/api/v1/@cms/dashboard', { key: null, headers: user.headers });
      assert.equal(res.status, 200, res.text);
      return res.body.needsMyReview.results.map((doc: { title: string }) => doc.title) as string[];
    };
    assert.deepEqual(await of(rita), ['For Rita']);
    const eddys = await of(eddy);
    assert.ok(eddys.includes('For anyone') && !eddys.includes('For Rita') && !eddys.includes('Still a draft'), eddys.join());
  });

  it('hostile review bodies: 400, nothing changes', async () => {
    const id = await newDraft('Hostile');
    for (const body of [null, [], 'x', {}, { stage: 5 }, { stage: 'draft', x: 1 }, { reviewers: 'u' }, { reviewers: [1] }, { reviewers: ['no-such-user'] }, JSON.parse('{"__proto__":{"stage":"approved"}}')]) {
      const res = await move(id, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)} ${res.text}`);
    }
    assert.equal((await t.request('GET', `/api/v1/article/${id}`)).body.cmsReview.stage, 'draft');
  });

  it('the config refuses a bad review option and review with autopublish', async () => {
    const bad = async (review: unknown, extra: Record<string, unknown> = {}) => {
      const config = testConfig() as { modules: Record<string, { options: Record<string, unknown> }> };
      Object.assign(config.modules.article!.options, { review, ...extra });
      await assert.rejects(loadAppConfig({ config, env: { CMS_LOG_LEVEL: 'silent' }, cwd: '/tmp' }), /options\.review/);
    };
    await bad({ stages: ['a'], publishFrom: 'a' });
    await bad({ stages: ['a', 'b'], publishFrom: 'c' });
    await bad({ stages: ['a', 'a'], publishFrom: 'a' });
    await bad({ stages: ['a', { name: 'b', role: 'king' }], publishFrom: 'b' });
    await bad(true, { autopublish: true });
  });
});
