import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { api, eventually, seedImage, uniqueWord, type FlowContext } from '../flow-support.js';

/**
 * End-to-end flows of the document editor (admin/src/screens/EditorScreen.vue and
 * admin/src/editor/). Each starts from a signed-in admin page and seeds what it needs through the
 * API. The demo types are enough, except for `largeArrayTyping`, which needs a `playlist` type
 * with an array `tracks` of { title (string), seconds (integer) } in the server's configuration.
 */
type Doc = {
  _id: string; cmsDocId: string; title: string; archived: boolean; modified?: boolean; lastPublishedAt?: string | null;
  [field: string]: unknown;
};

/** The status of a GET, for documents that should be gone. */
async function statusOf(ctx: FlowContext, path: string): Promise<number> {
  const response = await fetch(`${ctx.baseUrl}/api/v1${path}`, { headers: { Authorization: `ApiKey ${ctx.apiKey}` } });
  await response.body?.cancel();
  return response.status;
}

function version(ctx: FlowContext, type: string, docId: string, mode: 'draft' | 'published', locale = 'en'): Promise<Doc> {
  return api<Doc>(ctx, `/${type}/${docId}?cmsLocale=${locale}&cmsMode=${mode}&archived=any`);
}

/** The cmsDocId the editor's URL names (…/admin/types/<type>/<docId>). */
function docIdFromUrl(page: Page): string {
  const id = new URL(page.url()).pathname.split('/').pop();
  assert.ok(id && id !== 'new', `no document id in ${page.url()}`);
  return id;
}

async function answerDialog(page: Page, button: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

async function openEditor(page: Page, ctx: FlowContext, type: string, docId = 'new', locale = 'en'): Promise<void> {
  await page.goto(`${ctx.baseUrl}/admin/types/${type}/${docId}?locale=${locale}`);
  await page.getByRole('button', { name: 'Save draft' }).waitFor();
}

/**
 * An article with several field types: a required title left empty is refused beside its field
 * (focus goes there), then saving, publishing, discarding draft changes, undoing a publish,
 * archiving, restoring and deleting, each checked over the API.
 */
export async function articleWorkflow(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('wf');
  await openEditor(page, ctx, 'article');
  await page.getByLabel('Category', { exact: true }).fill('first');
  await page.getByLabel('Priority', { exact: true }).fill('3');
  await page.getByRole('group', { name: 'Tags' }).getByLabel('Tech').check();
  await page.getByRole('button', { name: 'Save draft' }).click();
  const title = page.getByRole('textbox', { name: 'Title', exact: true });
  await eventually(async () => assert.equal(await title.getAttribute('aria-invalid'), 'true'));
  const describedBy = (await title.getAttribute('aria-describedby')) ?? '';
  const error = page.locator(`[id="${describedBy.split(' ').find((id) => id.endsWith('-error'))}"]`);
  assert.match(await error.innerText(), /required/i);
  assert.equal(await title.evaluate((input) => input === document.activeElement), true, 'focus on the first field in error');

  await title.fill(`Article ${word}`);
  await page.getByRole('button', { name: 'Save draft' }).click();
  await page.waitForURL((url) => !url.pathname.endsWith('/new'));
  const docId = docIdFromUrl(page);
  const draft = await version(ctx, 'article', docId, 'draft');
  assert.equal(draft.title, `Article ${word}`);
  assert.equal(draft.category, 'first');
  assert.equal(draft.priority, 3);
  assert.deepEqual(draft.tags, ['tech']);
  assert.equal(await page.getByText('Draft only', { exact: true }).count(), 1);

  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await page.getByText('Published', { exact: true }).first().waitFor();
  await eventually(async () => assert.equal((await version(ctx, 'article', docId, 'published')).category, 'first'));

  // A second publish leaves a previous version, which "Undo publish" brings back.
  await page.getByLabel('Category', { exact: true }).fill('second');
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await eventually(async () => assert.equal((await version(ctx, 'article', docId, 'published')).category, 'second'));
  await page.getByRole('button', { name: 'Undo publish' }).click();
  await answerDialog(page, 'Undo publish');
  await eventually(async () => assert.equal((await version(ctx, 'article', docId, 'published')).category, 'first'));

  // The draft still says "second": discarding its changes copies the published version back.
  await page.getByText('Modified since published', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Discard draft changes' }).click();
  await answerDialog(page, 'Discard changes');
  await eventually(async () => assert.equal((await version(ctx, 'article', docId, 'draft')).category, 'first'));
  await eventually(async () => assert.equal(await page.getByLabel('Category', { exact: true }).inputValue(), 'first'));

  await page.getByRole('button', { name: 'Archive' }).click();
  await page.getByRole('button', { name: 'Restore' }).waitFor();
  assert.equal((await version(ctx, 'article', docId, 'draft')).archived, true);
  await page.getByRole('button', { name: 'Restore' }).click();
  await page.getByRole('button', { name: 'Archive' }).waitFor();
  assert.equal((await version(ctx, 'article', docId, 'draft')).archived, false);

  await page.getByRole('button', { name: 'Unpublish' }).click();
  await eventually(async () => assert.equal(await statusOf(ctx, `/article/${docId}?cmsLocale=en&cmsMode=published`), 404));

  await page.getByRole('button', { name: 'Delete' }).click();
  await answerDialog(page, 'Delete');
  await page.waitForURL((url) => url.pathname.endsWith('/types/article'));
  assert.equal(await statusOf(ctx, `/article/${docId}?cmsLocale=en&cmsMode=draft&archived=any`), 404);
}

/** An event's capacity of -1 is refused: the server's message shows beside the Capacity field. */
export async function eventValidationError(page: Page, ctx: FlowContext): Promise<void> {
  await openEditor(page, ctx, 'event');
  await page.getByRole('textbox', { name: 'Title', exact: true }).fill(uniqueWord('ev'));
  await page.getByLabel('Start Date').fill('2026-12-24');
  const capacity = page.getByLabel('Capacity', { exact: true });
  await capacity.fill('-1');
  await page.getByRole('button', { name: 'Save draft' }).click();
  await eventually(async () => assert.equal(await capacity.getAttribute('aria-invalid'), 'true'));
  const field = page.locator('.field.has-error', { has: capacity });
  assert.match(await field.innerText(), /at least 0/);
  assert.ok(page.url().endsWith('/new') || page.url().includes('/new?'), 'nothing was saved');
  await capacity.fill('40');
  await page.getByRole('button', { name: 'Save draft' }).click();
  await page.waitForURL((url) => !url.pathname.endsWith('/new'));
  assert.equal((await version(ctx, 'event', docIdFromUrl(page), 'draft')).capacity, 40);
}

/**
 * Leaving a draft saves its changes on the way out (autosave would have); only changes that
 * cannot be saved (the server refuses them) make it ask first, in the app and on unload.
 */
export async function unsavedChangesWarning(page: Page, ctx: FlowContext): Promise<void> {
  const note = await api<Doc>(ctx, '/note?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title: uniqueWord('unsaved') } });
  await openEditor(page, ctx, 'note', note.cmsDocId);
  await page.getByLabel('Text', { exact: true }).fill('changed, saved on leaving');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
  await page.waitForURL((url) => url.pathname.endsWith('/types/event'));
  assert.equal((await version(ctx, 'note', note.cmsDocId, 'draft')).text, 'changed, saved on leaving');

  await openEditor(page, ctx, 'note', note.cmsDocId);
  await page.getByLabel('Text', { exact: true }).fill('changed, not saved');
  await page.getByRole('textbox', { name: 'Title', exact: true }).fill('');
  const unloadBlocked = () =>
    page.evaluate(() => {
      const event = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(event);
      return event.defaultPrevented;
    });
  assert.equal(await unloadBlocked(), true, 'beforeunload warns');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
  await answerDialog(page, 'Cancel');
  assert.ok(page.url().includes(`/types/note/${note.cmsDocId}`), 'cancel stays in the editor');
  assert.equal(await page.getByLabel('Text', { exact: true }).inputValue(), 'changed, not saved');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
  await answerDialog(page, 'Leave without saving');
  await page.waitForURL((url) => url.pathname.endsWith('/types/event'));
  assert.equal((await version(ctx, 'note', note.cmsDocId, 'draft')).text, 'changed, saved on leaving');

  await openEditor(page, ctx, 'note', note.cmsDocId);
  assert.equal(await unloadBlocked(), false, 'nothing to warn about');
}

/** Ctrl+S saves the draft (and the browser's own save dialog does not open). */
export async function ctrlSSaves(page: Page, ctx: FlowContext): Promise<void> {
  const note = await api<Doc>(ctx, '/note?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title: uniqueWord('ctrls') } });
  await openEditor(page, ctx, 'note', note.cmsDocId);
  await page.getByLabel('Text', { exact: true }).fill('saved with the keyboard');
  await page.keyboard.press('Control+s');
  await page.getByText('Draft saved').first().waitFor();
  assert.equal((await version(ctx, 'note', note.cmsDocId, 'draft')).text, 'saved with the keyboard');
}

/**
 * Localizing to `es`: an article only in English shows "Not yet in Español", lists the image its
 * body shows (not in Spanish either, ticked by default), and localizes both: the Spanish image
 * widget shows the image, which is published in Spanish too (images autopublish).
 */
export async function localizeToSpanish(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('loc');
  const image = await seedImage<Doc>(ctx, `Image ${word}`);
  const article = await api<Doc>(ctx, '/article?cmsLocale=en&cmsMode=draft', {
    method: 'POST',
    body: { title: `Article ${word}`, body: { items: [{ type: '@cms/image', _image: [image.cmsDocId] }] } },
  });
  await openEditor(page, ctx, 'article', article.cmsDocId);
  await page.getByLabel('Locale').selectOption('es');
  await page.getByRole('heading', { name: 'Not yet in Español' }).waitFor();
  const related = page.getByRole('group', { name: 'Related documents not in Español either' });
  assert.equal(await related.getByLabel(`Image ${word}`).isChecked(), true, 'the image the body shows goes with it');
  await page.getByRole('button', { name: 'Localize from English' }).click();
  await page.getByRole('button', { name: 'Save draft' }).waitFor();
  assert.equal(await page.getByRole('textbox', { name: 'Title', exact: true }).inputValue(), `Article ${word}`);
  assert.equal((await version(ctx, 'article', article.cmsDocId, 'draft', 'es')).title, `Article ${word}`);
  assert.equal((await version(ctx, '@cms/image', image.cmsDocId, 'draft', 'es')).title, `Image ${word}`);
  assert.equal((await version(ctx, '@cms/image', image.cmsDocId, 'published', 'es')).title, `Image ${word}`);
  await page.getByRole('region', { name: 'Image 1' }).getByRole('button', { name: `Remove Image ${word}` }).waitFor();
}

/**
 * The time the page's scripts ran (seconds, Chromium's own accounting) while `act` runs: where a
 * keystroke that re-rendered every array item would show, without the paint and GC noise around it.
 */
async function scriptTime(page: Page, act: () => Promise<void>): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const scriptDuration = async () => (await cdp.send('Performance.getMetrics')).metrics.find((metric) => metric.name === 'ScriptDuration')!.value;
  const before = await scriptDuration();
  await act();
  const spent = (await scriptDuration()) - before;
  await cdp.detach();
  return spent;
}

/** Types into the title of a playlist's editor; answers the script time it cost. */
async function typingCost(page: Page, ctx: FlowContext, trackCount: number, text: string): Promise<number> {
  const tracks = Array.from({ length: trackCount }, (_, index) => ({ title: `Track ${index + 1}`, seconds: 180 + (index % 60) }));
  const playlist = await api<Doc>(ctx, '/playlist?cmsLocale=en&cmsMode=draft', { method: 'POST', body: { title: uniqueWord('long'), tracks } });
  await openEditor(page, ctx, 'playlist', playlist.cmsDocId);
  await page.getByRole('button', { name: `${trackCount}. Track ${trackCount}`, exact: true }).waitFor();
  const title = page.getByRole('textbox', { name: 'Title', exact: true }).first();
  await title.click();
  const cost = await scriptTime(page, () => page.keyboard.type(text));
  assert.ok((await title.inputValue()).endsWith(text));
  return cost;
}

/**
 * A playlist with 1,000 tracks: typing costs the page's scripts about what it costs with one
 * track (compared in the same test, so a busy machine slows both), then one track is edited,
 * moved with the keyboard and saved with Ctrl+S. Needs the `playlist` type (array `tracks` of
 * { title, seconds }).
 */
export async function largeArrayTyping(page: Page, ctx: FlowContext): Promise<void> {
  const text = ' typed quickly without lag';
  const small = await typingCost(page, ctx, 1, text);
  const large = await typingCost(page, ctx, 1000, text);
  // About 3 ms for 26 keys either way here; re-rendering 1,000 items per key would add 100 ms or more.
  assert.ok(large < 5 * small + 0.03, `typing with 1,000 items ran scripts for ${(large * 1000).toFixed(1)} ms, with 1 item ${(small * 1000).toFixed(1)} ms`);

  // One track, opened, edited, and moved up with the keyboard.
  await page.getByRole('button', { name: '500. Track 500', exact: true }).click();
  const trackTitle = page.getByRole('group', { name: 'Tracks' }).getByRole('textbox', { name: 'Title', exact: true });
  await trackTitle.fill('Track five hundred');
  await page.getByRole('button', { name: '500. Track five hundred', exact: true }).press('Alt+ArrowUp');
  await page.getByRole('button', { name: '499. Track five hundred', exact: true }).waitFor();
  await page.keyboard.press('Control+s');
  await page.getByText('Draft saved').first().waitFor();
  const docId = docIdFromUrl(page);
  const saved = await version(ctx, 'playlist', docId, 'draft');
  const savedTracks = saved.tracks as { title: string }[];
  assert.equal(savedTracks.length, 1000);
  assert.equal(savedTracks[498]!.title, 'Track five hundred');
  assert.equal(savedTracks[499]!.title, 'Track 499');
  assert.ok(saved.title.endsWith(text));
}

/** Array items: add, remove and the `max` bound (the playlist's tracks have none; an item is added and removed). */
export async function arrayAddRemove(page: Page, ctx: FlowContext): Promise<void> {
  const playlist = await api<Doc>(ctx, '/playlist?cmsLocale=en&cmsMode=draft', {
    method: 'POST',
    body: { title: uniqueWord('short'), tracks: [{ title: 'One', seconds: 60 }] },
  });
  await openEditor(page, ctx, 'playlist', playlist.cmsDocId);
  await page.getByRole('button', { name: 'Add item to Tracks' }).click();
  const tracks = page.getByRole('group', { name: 'Tracks' });
  await tracks.getByRole('textbox', { name: 'Title', exact: true }).fill('Two');
  await tracks.getByLabel('Seconds', { exact: true }).fill('75');
  await page.getByRole('button', { name: 'Remove item 1' }).click();
  await page.getByRole('button', { name: 'Save draft' }).click();
  await page.getByText('Draft saved').first().waitFor();
  const saved = (await version(ctx, 'playlist', playlist.cmsDocId, 'draft')).tracks as { title: string; seconds: number }[];
  assert.deepEqual(saved.map(({ title, seconds }) => ({ title, seconds })), [{ title: 'Two', seconds: 75 }]);
}

/** A contributor sees Save draft but no Publish button (the server would refuse it anyway). */
export async function contributorHasNoPublish(page: Page, ctx: FlowContext): Promise<void> {
  const username = uniqueWord('contrib');
  const password = 'correct horse battery';
  await api(ctx, '/@cms/user', { method: 'POST', body: { title: username, username, password, role: 'contributor' } });
  const context = await page.context().browser()!.newContext();
  try {
    const other = await context.newPage();
    await other.goto(`${ctx.baseUrl}/admin/sign-in`);
    await other.getByLabel('Username or email').fill(username);
    await other.getByLabel('Password').fill(password);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.waitForURL((url) => !url.pathname.endsWith('/sign-in'));
    await openEditor(other, ctx, 'note');
    assert.equal(await other.getByRole('button', { name: 'Publish', exact: true }).count(), 0);
    await other.getByRole('textbox', { name: 'Title', exact: true }).fill(`By ${username}`);
    await other.getByRole('button', { name: 'Save draft' }).click();
    await other.waitForURL((url) => !url.pathname.endsWith('/new'));
    await other.getByText('Draft only', { exact: true }).waitFor();
    assert.equal(await other.getByRole('button', { name: 'Publish', exact: true }).count(), 0);
    assert.equal(await other.getByRole('button', { name: 'Unpublish' }).count(), 0);
  } finally {
    await context.close();
  }
}
