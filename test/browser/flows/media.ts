import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { api, eventually, uniqueWord, type FlowContext } from '../flow-support.js';

/**
 * End-to-end flows of the media library (admin/src/screens/MediaScreen.vue and admin/src/media/).
 * Each starts from a signed-in admin page and makes its own images, named after a unique word.
 */
type Crop = { top: number; left: number; width: number; height: number };
type ImagePiece = {
  _id: string;
  cmsDocId: string;
  title: string;
  alt: string;
  attachment: { _id: string; width: number; height: number; crop: Crop | null; crops: Crop[] };
};

async function png(width: number, height: number, colour: string): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } }).png().toBuffer();
}

async function imagesTitled(ctx: FlowContext, word: string, mode: 'draft' | 'published' = 'draft'): Promise<ImagePiece[]> {
  const answer = await api<{ results: ImagePiece[] }>(ctx, `/@cms/image?cmsLocale=en&cmsMode=${mode}&title=${encodeURIComponent(word)}`);
  return answer.results;
}

/**
 * Uploads two generated PNGs at once, sees both progress bars finish and both images in the grid,
 * edits one image's alt text, crops it with the number inputs and the keyboard, and checks the
 * alt text and the crop over the API.
 */
export async function uploadEditAndCropImages(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('flowimg');
  const files = [
    { name: `${word}-red.png`, mimeType: 'image/png', buffer: await png(640, 480, '#c0392b') },
    { name: `${word}-blue.png`, mimeType: 'image/png', buffer: await png(300, 200, '#2457c5') },
  ];
  await page.goto(`${ctx.baseUrl}/admin/media`);
  await page.getByRole('heading', { level: 1, name: 'Media' }).waitFor();

  // 1. Two files at once, a progress bar each, both done.
  await page.getByLabel('Upload files').setInputFiles(files);
  const uploads = page.getByRole('list', { name: 'Uploads' });
  for (const file of files) {
    const row = uploads.getByRole('listitem').filter({ hasText: file.name });
    await row.getByText('Done').waitFor();
    assert.equal(await row.getByRole('progressbar').getAttribute('value'), '1');
  }
  const red = page.getByRole('button', { name: `${word} red` });
  await red.waitFor();
  await page.getByRole('button', { name: `${word} blue` }).waitFor();
  await eventually(async () => assert.equal((await imagesTitled(ctx, word)).length, 2));

  // 2. Alt text, saved with the piece (autopublished).
  await red.click();
  await page.getByLabel('Alt text').fill('A red rectangle');
  await page.getByLabel('Credit', { exact: true }).fill('Flow camera');
  await page.getByRole('button', { name: 'Save' }).click();
  await eventually(async () => {
    const [published] = await imagesTitled(ctx, `${word} red`, 'published');
    assert.equal(published?.alt, 'A red rectangle');
  });

  // 3. Crop: numbers first, then one arrow key (1% of 640 px = 6 px right) and Shift+ArrowDown (6 px taller).
  await page.getByRole('button', { name: 'Crop', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Crop image' });
  await dialog.waitFor();
  for (const [label, value] of [['Width', '200'], ['Height', '100'], ['Top', '40'], ['Left', '50']] as const) {
    await dialog.getByLabel(label, { exact: true }).fill(value);
    await dialog.getByLabel(label, { exact: true }).press('Tab');
  }
  const box = dialog.getByRole('application', { name: 'Crop box' });
  await box.focus();
  await box.press('ArrowRight');
  await box.press('Shift+ArrowDown');
  const expected: Crop = { top: 40, left: 56, width: 200, height: 106 };
  assert.equal(await dialog.getByLabel('Left', { exact: true }).inputValue(), '56');
  assert.equal(await dialog.getByLabel('Height', { exact: true }).inputValue(), '106');
  await dialog.getByRole('button', { name: 'Apply crop' }).click();
  await dialog.waitFor({ state: 'detached' });

  await eventually(async () => {
    const [image] = await imagesTitled(ctx, `${word} red`);
    assert.deepEqual(image?.attachment.crop, expected);
    assert.ok(image?.attachment.crops.some((crop) => JSON.stringify(crop) === JSON.stringify(expected)));
  });
  await page.getByText('cropped to 200 × 106').waitFor();
  // Focus came back from the dialog to the button that opened it.
  assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Crop');
}

/** Searching narrows the grid to matching images with one list request per search. */
export async function searchImages(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('flowfind');
  for (const colour of ['green', 'grey']) {
    const upload = new FormData();
    upload.append('file', new Blob([new Uint8Array(await png(120, 90, colour === 'green' ? '#1e7d32' : '#777777'))], { type: 'image/png' }), `${word}-${colour}.png`);
    const response = await fetch(`${ctx.baseUrl}/api/v1/@cms/attachment/upload`, { method: 'POST', headers: { Authorization: `ApiKey ${ctx.apiKey}` }, body: upload });
    const attachment = (await response.json()) as { _id: string };
    await api(ctx, '/@cms/image?cmsLocale=en', { method: 'POST', body: { title: `${word} ${colour}`, attachment: { _id: attachment._id } } });
  }
  const isImageList = (url: string) => url.includes('/api/v1/@cms/image?');
  const firstList = page.waitForResponse((response) => isImageList(response.url()));
  await page.goto(`${ctx.baseUrl}/admin/media`);
  await firstList;
  const lists: string[] = [];
  page.on('request', (request) => isImageList(request.url()) && lists.push(request.url()));
  await page.getByRole('searchbox', { name: 'Search images' }).fill(word);
  await page.getByRole('button', { name: `${word} green` }).waitFor();
  await eventually(async () => assert.equal(await page.locator('.media-item').count(), 2));
  assert.equal(lists.length, 1, `one list request for the search, not one per keystroke: ${lists.join(', ')}`);
}

/** Archives one image and deletes another from the details panel, each after a confirmation. */
export async function archiveAndDeleteImages(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('flowgone');
  const made: ImagePiece[] = [];
  for (const name of ['kept', 'erased']) {
    const upload = new FormData();
    upload.append('file', new Blob([new Uint8Array(await png(80, 60, '#6b21a8'))], { type: 'image/png' }), `${word}-${name}.png`);
    const response = await fetch(`${ctx.baseUrl}/api/v1/@cms/attachment/upload`, { method: 'POST', headers: { Authorization: `ApiKey ${ctx.apiKey}` }, body: upload });
    const attachment = (await response.json()) as { _id: string };
    made.push(await api<ImagePiece>(ctx, '/@cms/image?cmsLocale=en', { method: 'POST', body: { title: `${word} ${name}`, attachment: { _id: attachment._id } } }));
  }
  await page.goto(`${ctx.baseUrl}/admin/media`);
  await page.getByRole('searchbox', { name: 'Search images' }).fill(word);

  await page.getByRole('button', { name: `${word} kept` }).click();
  await page.getByRole('button', { name: 'Archive', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Archive' }).click();
  await page.getByRole('button', { name: `${word} kept` }).waitFor({ state: 'detached' });
  const archived = await api<ImagePiece & { archived: boolean }>(ctx, `/@cms/image/${made[0]!.cmsDocId}?cmsLocale=en&cmsMode=published&archived=any`);
  assert.equal(archived.archived, true);

  await page.getByRole('button', { name: `${word} erased` }).click();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('button', { name: `${word} erased` }).waitFor({ state: 'detached' });
  const gone = await fetch(`${ctx.baseUrl}/api/v1/@cms/image/${made[1]!.cmsDocId}?cmsLocale=en&cmsMode=draft&archived=any`, { headers: { Authorization: `ApiKey ${ctx.apiKey}` } });
  assert.equal(gone.status, 404);
}

/**
 * An image two published articles show, one through an image widget in its body, the other
 * inline in its rich text: "Used in" lists both; deleting it is refused by the server, and the
 * dialog that follows names both; "Delete anyway" deletes it.
 */
export async function deleteImageInUse(page: Page, ctx: FlowContext): Promise<void> {
  const word = uniqueWord('flowused');
  const upload = new FormData();
  upload.append('file', new Blob([new Uint8Array(await png(80, 60, '#0f766e'))], { type: 'image/png' }), `${word}.png`);
  const response = await fetch(`${ctx.baseUrl}/api/v1/@cms/attachment/upload`, { method: 'POST', headers: { Authorization: `ApiKey ${ctx.apiKey}` }, body: upload });
  const attachment = (await response.json()) as { _id: string };
  const image = await api<ImagePiece>(ctx, '/@cms/image?cmsLocale=en', { method: 'POST', body: { title: `${word} busy`, attachment: { _id: attachment._id } } });
  const inline = `<p>Inline</p><figure><img src="/api/v1/@cms/image/${image.cmsDocId}/src" alt="" /></figure>`;
  const bodies = {
    widget: { items: [{ type: '@cms/image', _image: [image._id] }] },
    inline: { items: [{ type: '@cms/rich-text', content: inline }] },
  };
  for (const [name, body] of Object.entries(bodies)) {
    await api(ctx, '/article?cmsLocale=en&cmsMode=published', { method: 'POST', body: { title: `${word} ${name}`, body } });
  }
  await page.goto(`${ctx.baseUrl}/admin/media`);
  await page.getByRole('searchbox', { name: 'Search images' }).fill(word);
  await page.getByRole('button', { name: `${word} busy` }).click();

  const usedIn = page.getByRole('region', { name: 'Used in' });
  for (const name of Object.keys(bodies)) await usedIn.getByRole('link', { name: `${word} ${name}` }).waitFor();

  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
  const inUse = page.getByRole('dialog', { name: `“${word} busy” is in use` });
  await inUse.waitFor();
  const listed = await inUse.getByRole('listitem').allTextContents();
  assert.deepEqual(listed.sort(), [`${word} inline (Article)`, `${word} widget (Article)`]);
  await inUse.getByRole('button', { name: 'Delete anyway' }).click();
  await page.getByRole('button', { name: `${word} busy` }).waitFor({ state: 'detached' });
  const gone = await fetch(`${ctx.baseUrl}/api/v1/@cms/image/${image.cmsDocId}?cmsLocale=en&cmsMode=draft&archived=any`, { headers: { Authorization: `ApiKey ${ctx.apiKey}` } });
  assert.equal(gone.status, 404);
}
