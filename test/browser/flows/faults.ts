import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { api, eventually, seedImage, uniqueWord, type FlowContext } from '../flow-support.js';
import { adminPassword, signedInPage } from '../../helpers/admin-app.js';

/**
 * The admin faults of issue 22 (point 5), each as its user met it (localizing an article with its
 * image is editor.ts's localizeToSpanish): an image of another locale in the media picker, a contributor on an article with an
 * author, and a search typed as a word's beginning. Each starts from a signed-in admin page and
 * seeds what it needs through the API; the contributor flows sign in in a context of their own.
 */
type Doc = { _id: string; cmsDocId: string; title: string; archived?: boolean; [field: string]: unknown };

async function openEditor(page: Page, ctx: FlowContext, type: string, docId: string, locale = 'en'): Promise<void> {
  await page.goto(`${ctx.baseUrl}/admin/types/${type}/${docId}?locale=${locale}`);
  await page.getByRole('button', { name: 'Save draft' }).waitFor();
}

/** The status and body of a GET with the admin key, for versions that may not exist. */
async function read(ctx: FlowContext, path: string): Promise<{ status: number; body: Doc }> {
  const response = await fetch(`${ctx.baseUrl}/api/v1${path}`, { headers: { Authorization: `ApiKey ${ctx.apiKey}` } });
  return { status: response.status, body: (await response.json()) as Doc };
}

/** A contributor made over the API and signed in through the form, in a browser context of its own. */
async function signedInContributor(page: Page, ctx: FlowContext): Promise<Page> {
  const username = uniqueWord('contrib');
  await api(ctx, '/@cms/user', { method: 'POST', body: { title: username, username, password: adminPassword, role: 'contributor' } });
  return signedInPage(page.context().browser()!, ctx.baseUrl, username, adminPassword);
}

/**
 * In a Spanish article, the media picker offers an English image not yet in Spanish: "Localize
 * and use" localizes it over the API and fills the field, and the saved article holds it.
 */
export async function pickerLocalizesAndUses(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('pick');
  const image = await seedImage<Doc>(ctx, `Picked ${word}`);
  const article = await api<Doc>(ctx, '/article?cmsLocale=es&cmsMode=draft', { method: 'POST', body: { title: `Artículo ${word}` } });
  assert.equal((await read(ctx, `/@cms/image/${image.cmsDocId}?cmsLocale=es&cmsMode=draft`)).status, 404, 'not in Spanish yet');

  await openEditor(page, ctx, 'article', article.cmsDocId, 'es');
  await page.getByRole('button', { name: 'Browse media for Hero Image' }).click();
  const picker = page.getByRole('dialog', { name: 'Choose an image' });
  await picker.getByText('Images not yet in Español').click();
  await picker.getByRole('searchbox', { name: 'Search images of English' }).fill(word);
  await picker.getByRole('button', { name: `Localize and use Picked ${word}` }).click();
  await picker.waitFor({ state: 'hidden' });
  await page.getByRole('button', { name: `Remove Picked ${word}` }).waitFor();

  const localized = await read(ctx, `/@cms/image/${image.cmsDocId}?cmsLocale=es&cmsMode=draft`);
  assert.equal(localized.status, 200, 'choosing it localized it');
  assert.equal(localized.body.title, `Picked ${word}`);
  await page.getByRole('button', { name: 'Save draft' }).click();
  await eventually(async () => {
    const saved = await api<Doc>(ctx, `/article/${article.cmsDocId}?cmsLocale=es&cmsMode=draft`);
    assert.deepEqual((saved._heroImage as Doc[]).map((doc) => doc.cmsDocId), [image.cmsDocId]);
  });
}

/**
 * A contributor opens a published article with an author (a user, a type the role may not read):
 * the Author field says the author is hidden, not "None"; no Archive is offered, and a saved draft
 * keeps the author. In the list, Archive is offered for a draft never published, not for the
 * published article.
 */
export async function contributorOnAuthoredArticle(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('authored');
  const author = await api<Doc>(ctx, '/@cms/user', {
    method: 'POST',
    body: { title: `Author ${word}`, username: `a${word}`, password: adminPassword, role: 'editor' },
  });
  const published = await api<Doc>(ctx, '/article?cmsLocale=en', { method: 'POST', body: { title: `${word} Published`, _author: [{ _id: author._id }] } });
  const draftOnly = await api<Doc>(ctx, '/article?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title: `${word} Draft` } });
  const contributor = await signedInContributor(page, ctx);
  try {
    await openEditor(contributor, ctx, 'article', published.cmsDocId);
    const authorField = contributor.locator('.field').filter({ has: contributor.locator('label', { hasText: /^Author$/ }) });
    await authorField.getByText('1 related document hidden from your role').waitFor();
    assert.doesNotMatch(await authorField.innerText(), /None\./);
    assert.equal(await contributor.getByRole('button', { name: 'Archive', exact: true }).count(), 0, 'no Archive on a published document');
    await contributor.getByRole('textbox', { name: 'Title', exact: true }).fill(`${word} Published, edited`);
    await contributor.getByRole('button', { name: 'Save draft' }).click();
    await eventually(async () => {
      const draft = await api<Doc>(ctx, `/article/${published.cmsDocId}?cmsLocale=en&cmsMode=draft`);
      assert.equal(draft.title, `${word} Published, edited`);
      assert.deepEqual((draft._author as Doc[]).map((user) => user.title), [`Author ${word}`], 'the save kept the author');
    });

    await contributor.goto(`/admin/types/article?q=${word}`);
    const bulk = contributor.getByRole('group', { name: 'Bulk actions' });
    await contributor.getByRole('checkbox', { name: `Select ${word} Published, edited` }).check();
    await bulk.getByText('Only a role that may publish can archive or delete a published document.').waitFor();
    assert.equal(await bulk.getByRole('button', { name: 'Archive' }).count(), 0);
    assert.equal(await bulk.getByRole('button', { name: 'Delete' }).count(), 0);
    await contributor.getByRole('checkbox', { name: `Select ${word} Published, edited` }).uncheck();
    await contributor.getByRole('checkbox', { name: `Select ${word} Draft` }).check();
    await bulk.getByRole('button', { name: 'Archive' }).click();
    await contributor.getByRole('dialog', { name: 'Archive 1 article?' }).getByRole('button', { name: 'Archive' }).click();
    await contributor.getByText('Archived 1 article.').waitFor();
    assert.equal((await api<Doc>(ctx, `/article/${draftOnly.cmsDocId}?cmsLocale=en&cmsMode=draft&archived=any`)).archived, true);
  } finally {
    await contributor.context().close();
  }
}

/**
 * "sprin" in the list's search box finds the article titled "Spring …" and the one whose category
 * begins so, not the third; the search is in the URL.
 */
export async function listSearchMatchesWordBeginnings(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('season');
  const create = (body: Record<string, unknown>) => api(ctx, '/article?cmsLocale=en&cmsMode=draft', { method: 'POST', body });
  await create({ title: `Spring walks ${word}` });
  await create({ title: `Garden ${word}`, category: 'springtime' });
  await create({ title: `Autumn ${word}` });
  await page.goto(`${ctx.baseUrl}/admin/types/article`);
  await page.getByRole('heading', { level: 1, name: 'Articles' }).waitFor();
  await page.getByRole('searchbox', { name: 'Search' }).fill(`sprin ${word}`);
  await eventually(async () => {
    assert.equal(new URL(page.url()).searchParams.get('q'), `sprin ${word}`);
    const shown = await page.getByRole('link', { name: new RegExp(word) }).allTextContents();
    assert.deepEqual(shown.map((title) => title.trim()).sort(), [`Garden ${word}`, `Spring walks ${word}`]);
  });
}
