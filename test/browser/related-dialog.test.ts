import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { browserSkipReason, expectNoSeriousA11yViolations, screenshot } from '../helpers/browser.js';
import { signedInAdminSuite } from '../helpers/admin-app.js';

/**
 * A relationship's dialog: a related document created from the field (a draft, or published),
 * edited from its row (If-Match; a 412 opens the comparison), without leaving the form or losing
 * its unsaved values; checked through the API. Articles relate to articles (`_related`).
 */
describe('admin: creating and editing related documents from a relationship field', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('relater', 'Rita Relater');

  it('creates a related draft from the field, keeps the form, and the saved relationship names it', async () => {
    const { page, site } = suite;
    await page.goto('/admin/types/article/new');
    const title = page.getByRole('textbox', { name: 'Title', exact: true });
    await title.fill('Holder, not saved yet');
    const opener = page.getByRole('button', { name: 'Create new Article for Related' });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'New Article' });
    const dialogTitle = dialog.getByRole('textbox', { name: 'Title', exact: true });
    await dialogTitle.waitFor();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-related-dialog');

    // The server's refusal shows beside the dialog's field; nothing is created.
    await dialog.getByRole('button', { name: 'Create draft' }).click();
    await dialog.locator('.field-error').first().waitFor();
    assert.equal(await dialogTitle.getAttribute('aria-invalid'), 'true');

    await dialogTitle.fill('Created inside');
    await dialog.getByRole('button', { name: 'Create draft' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Edit Created inside' }).waitFor();
    assert.equal(await title.inputValue(), 'Holder, not saved yet');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Create new Article for Related');

    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/new'));
    const holderId = new URL(page.url()).pathname.split('/').pop();
    const holder = await site.t.request('GET', `/api/v1/article/${holderId}?cmsMode=draft`);
    assert.equal(holder.status, 200, holder.text);
    const relatedTitles = (holder.body._related as { title: string }[]).map((doc) => doc.title);
    assert.deepEqual(relatedTitles, ['Created inside']);
    const createdId = (holder.body._related as { cmsDocId: string }[])[0]!.cmsDocId;
    const draft = await site.t.request('GET', `/api/v1/article/${createdId}?cmsMode=draft`);
    assert.equal(draft.status, 200);
    assert.equal(draft.body.title, 'Created inside');
    const published = await site.t.request('GET', `/api/v1/article/${createdId}?cmsMode=published`);
    assert.equal(published.status, 404, 'a draft only: "Create draft" publishes nothing');
  });

  it('creates and publishes a related document', async () => {
    const { page, site } = suite;
    await page.goto('/admin/types/article/new');
    await page.getByRole('textbox', { name: 'Title', exact: true }).fill('Holder of a published one');
    await page.getByRole('button', { name: 'Create new Article for Related' }).click();
    const dialog = page.getByRole('dialog', { name: 'New Article' });
    await dialog.getByRole('textbox', { name: 'Title', exact: true }).fill('Published inside');
    await dialog.getByRole('button', { name: 'Create and publish' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Edit Published inside' }).waitFor();
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/new'));
    const holder = await site.t.request('GET', `/api/v1/article/${new URL(page.url()).pathname.split('/').pop()}?cmsMode=draft`);
    const [created] = holder.body._related as { cmsDocId: string }[];
    assert.ok(created, holder.text);
    const published = await site.t.request('GET', `/api/v1/article/${created.cmsDocId}?cmsMode=published`);
    assert.equal(published.status, 200, published.text);
    assert.equal(published.body.title, 'Published inside');
  });

  it('edits a related document from its row, with If-Match, and shows its new title', async () => {
    const { page, site } = suite;
    const relatedDoc = await site.t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title: 'Edit me' } });
    const holder = await site.t.request('POST', '/api/v1/article?cmsMode=draft', {
      body: { title: 'Holder of an edited one', _related: [{ _id: relatedDoc.body._id }] },
    });
    assert.equal(holder.status, 200, holder.text);
    await page.goto(`/admin/types/article/${holder.body.cmsDocId}`);
    const edit = page.getByRole('button', { name: 'Edit Edit me' });
    await edit.click();
    const dialog = page.getByRole('dialog', { name: 'Edit Article' });
    const dialogTitle = dialog.getByRole('textbox', { name: 'Title', exact: true });
    await dialogTitle.waitFor();
    assert.equal(await dialogTitle.inputValue(), 'Edit me');
    await dialogTitle.fill('Edited inside');
    await dialog.getByRole('button', { name: 'Save draft' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Edit Edited inside' }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Edit Edited inside');
    const stored = await site.t.request('GET', `/api/v1/article/${relatedDoc.body.cmsDocId}?cmsMode=draft`);
    assert.equal(stored.body.title, 'Edited inside');

    // Someone else changes it while the dialog is open: the save's If-Match fails, the comparison opens.
    await page.getByRole('button', { name: 'Edit Edited inside' }).click();
    await dialogTitle.waitFor();
    const elsewhere = await site.t.request('PATCH', `/api/v1/article/${relatedDoc.body._id}`, { body: { title: 'Changed elsewhere' } });
    assert.equal(elsewhere.status, 200, elsewhere.text);
    await dialogTitle.fill('Mine wins');
    await dialog.getByRole('button', { name: 'Save draft' }).click();
    const comparison = page.getByRole('dialog', { name: 'This document changed while you edited it' });
    await comparison.waitFor();
    await comparison.getByRole('button', { name: 'Save with these choices' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Edit Mine wins' }).waitFor();
    const after = await site.t.request('GET', `/api/v1/article/${relatedDoc.body.cmsDocId}?cmsMode=draft`);
    assert.equal(after.body.title, 'Mine wins');
  });

  it('closes with Escape and gives focus back to the field', async () => {
    const { page } = suite;
    await page.goto('/admin/types/article/new');
    await page.getByRole('button', { name: 'Create new Article for Related' }).click();
    const dialog = page.getByRole('dialog', { name: 'New Article' });
    await dialog.getByRole('textbox', { name: 'Title', exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Create new Article for Related');
  });
});
