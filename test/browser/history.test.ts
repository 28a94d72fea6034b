import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { browserSkipReason, expectNoSeriousA11yViolations, screenshot } from '../helpers/browser.js';
import { adminTestConfig, signedInAdminSuite } from '../helpers/admin-app.js';
import { api, eventually, uniqueWord } from './flow-support.js';

/**
 * The editor's history panel (issue 25, part 1): three saves, two entries compared word by word
 * (title and rich text), an older entry restored into the draft, nothing published.
 */
type Doc = { _id: string; cmsDocId: string; title: string; modified?: boolean; body?: { items: { content?: string }[] } };

describe('admin: history, diff and restore', { skip: browserSkipReason }, () => {
  // Every save its own entry: the merge window of autosaves would make the three saves one.
  const suite = signedInAdminSuite('ada', 'Ada Lovelace', { ...adminTestConfig(), limits: { historyMergeSeconds: 0 } });
  const page = () => suite.page;
  const version = (docId: string, mode: 'draft' | 'published') => api<Doc>(suite.ctx, `/article/${docId}?cmsLocale=en&cmsMode=${mode}`);

  it('lists three saves, shows the changed words of two entries, restores an older one into the draft without publishing', async () => {
    const word = uniqueWord('history');
    const body = { metaType: 'area', items: [{ metaType: 'widget', type: '@cms/rich-text', content: '<p>The quick brown fox</p>' }] };
    const created = await api<Doc>(suite.ctx, '/article?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title: `${word} alpha`, body, tags: ['news'] } });
    await api<Doc>(suite.ctx, `/article/${created.cmsDocId}/publish?cmsLocale=en`, { method: 'POST' });

    await page().goto(`/admin/types/article/${created.cmsDocId}?locale=en`);
    const title = page().getByRole('textbox', { name: 'Title', exact: true });
    await title.waitFor();
    async function save(): Promise<void> {
      const saved = page().waitForResponse((response) => response.request().method() === 'PUT' && response.url().includes(created.cmsDocId));
      await page().getByRole('button', { name: 'Save draft' }).click();
      assert.equal((await saved).status(), 200);
      await eventually(async () => assert.equal(await page().getByRole('button', { name: 'Save draft' }).isDisabled(), false));
    }
    await title.fill(`${word} beta`);
    await save();
    await title.fill(`${word} gamma`);
    const richText = page().locator('.rich-text-content').first();
    await richText.click();
    await page().keyboard.press('End');
    await page().keyboard.type(' jumps high');
    await save();
    await title.fill(`${word} delta`);
    await page().getByRole('checkbox', { name: 'Tech', exact: true }).check();
    await save();

    await page().getByRole('button', { name: 'History' }).click();
    const panel = page().getByRole('region', { name: 'History' });
    await panel.getByText('Created').waitFor();
    const entries = panel.locator('.history-entry');
    await eventually(async () => assert.equal(await entries.count(), 5));
    const labels = await panel.locator('.history-action').allInnerTexts();
    assert.deepEqual(labels, ['Saved', 'Saved', 'Saved', 'Published', 'Created']);

    // The newest save against the one before: the title's changed word.
    await entries.nth(0).getByRole('checkbox').check();
    await entries.nth(1).getByRole('checkbox').check();
    const diff = page().getByRole('region', { name: 'Differences' });
    const titleDiff = diff.locator('[data-field="title"]');
    await titleDiff.waitFor();
    // Old and new each on a line of their own; choices by their labels, as the form shows them.
    assert.equal(await titleDiff.locator('.history-older del').innerText(), 'gamma');
    assert.equal(await titleDiff.locator('.history-newer ins').innerText(), 'delta');
    assert.doesNotMatch(await titleDiff.locator('.history-older').innerText(), /delta/);
    assert.doesNotMatch(await titleDiff.locator('.history-newer').innerText(), /gamma/);
    const tagsDiff = diff.locator('[data-field="tags"]');
    assert.match(await tagsDiff.locator('.history-older').innerText(), /News$/);
    assert.match(await tagsDiff.locator('.history-newer').innerText(), /News, Tech$/);
    assert.doesNotMatch(await tagsDiff.innerText(), /news|tech/, 'not the stored values');
    assert.equal(await diff.locator('[data-field="body"]').count(), 0, 'the body did not change between these two');

    // The newest save against the first one: the rich text's added words too.
    await entries.nth(1).getByRole('checkbox').uncheck();
    await entries.nth(2).getByRole('checkbox').check();
    const bodyDiff = diff.locator('[data-field="body"]');
    await bodyDiff.waitFor();
    assert.match(await bodyDiff.locator('ins').innerText(), /jumps high/);
    assert.equal(await bodyDiff.locator('del').count(), 0);
    assert.match(await bodyDiff.innerText(), /The quick brown fox/);
    await expectNoSeriousA11yViolations(page());
    await screenshot(page(), 'admin-editor-history-diff');

    // Restore the first save ("beta"): the form shows it, the draft is modified, nothing published.
    await entries.nth(2).getByRole('button', { name: /^Restore/ }).click();
    await page().getByRole('dialog').getByRole('button', { name: 'Restore', exact: true }).click();
    await page().getByText('Restored into the draft').first().waitFor();
    await eventually(async () => assert.equal(await title.inputValue(), `${word} beta`));
    await eventually(async () => assert.equal(await richText.innerText(), 'The quick brown fox'));
    await page().getByText('Modified since published').first().waitFor();
    const draft = await version(created.cmsDocId, 'draft');
    assert.equal(draft.title, `${word} beta`);
    assert.equal(draft.modified, true);
    const published = await version(created.cmsDocId, 'published');
    assert.equal(published.title, `${word} alpha`, 'nothing was published');
    await eventually(async () => assert.equal(await panel.locator('.history-action').first().innerText(), 'Restored from history'));
  });
});
