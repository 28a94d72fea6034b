import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { browserSkipReason, expectNoSeriousA11yViolations, screenshot } from '../helpers/browser.js';
import { signedInAdminSuite } from '../helpers/admin-app.js';
import { api, eventually, uniqueWord, type FlowContext } from './flow-support.js';

type Crop = { top: number; left: number; width: number; height: number };
type ImagePiece = { _id: string; cmsDocId: string; title: string; attachment: { _id: string; focalPoint?: { x: number; y: number }; crop: Crop | null } };

/** A 400×200 PNG made an `@cms/image` piece over the API. */
async function wideImage(ctx: FlowContext, title: string): Promise<ImagePiece> {
  const png = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#2457c5' } }).png().toBuffer();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'wide.png');
  const upload = await fetch(`${ctx.baseUrl}/api/v1/@cms/attachment/upload`, { method: 'POST', headers: { Authorization: `ApiKey ${ctx.apiKey}` }, body: form });
  assert.equal(upload.status, 200, await upload.clone().text());
  const attachment = (await upload.json()) as { _id: string };
  return api<ImagePiece>(ctx, '/@cms/image?cmsLocale=en', { method: 'POST', body: { title, alt: `${title} alt`, attachment: { _id: attachment._id } } });
}

describe('admin: an image\'s focal point', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('focuser');

  it('sets the focal point by a click, keeps it after a reload, and starts a new crop around it', async () => {
    const { page, ctx } = suite;
    const word = uniqueWord('focal');
    const image = await wideImage(ctx, word);
    await page.goto(`${ctx.baseUrl}/admin/media`);
    await page.getByRole('button', { name: word }).click();
    const frame = page.getByRole('application', { name: 'Focal point' });
    await frame.waitFor();
    await page.getByText('No focal point').waitFor();
    // A click three quarters across and a quarter down the picture.
    const area = await frame.locator('img').boundingBox();
    assert.ok(area);
    await frame.click({ position: { x: area.width * 0.75, y: area.height * 0.25 } });
    await page.getByText('Focal point: 75% across, 25% down.').waitFor();
    await eventually(async () => {
      const stored = await api<ImagePiece>(ctx, `/@cms/image/${image._id}`);
      assert.deepEqual(stored.attachment.focalPoint, { x: 75, y: 25 });
    });
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'admin-media-focal-point');

    await page.reload();
    await page.getByRole('button', { name: word }).click();
    await page.getByText('Focal point: 75% across, 25% down.').waitFor();
    const marker = page.locator('[data-focal-marker]');
    assert.equal(await marker.evaluate((element) => (element as HTMLElement).style.left), '75%');
    // The arrow keys move it by 5%.
    await frame.focus();
    await frame.press('ArrowLeft');
    await page.getByText('Focal point: 70% across, 25% down.').waitFor();
    await eventually(async () => {
      assert.deepEqual((await api<ImagePiece>(ctx, `/@cms/image/${image._id}`)).attachment.focalPoint, { x: 70, y: 25 });
    });

    // The new crop's box (80% of each side: 320×160) is centred on 70%, 25% as far as the image allows.
    await page.getByRole('button', { name: 'Crop', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Crop image' });
    await dialog.waitFor();
    await dialog.locator('[data-focal-marker]').waitFor();
    const expected: Crop = { top: 0, left: 80, width: 320, height: 160 };
    for (const [label, side] of [['Top', 'top'], ['Left', 'left'], ['Width', 'width'], ['Height', 'height']] as const) {
      assert.equal(await dialog.getByLabel(label, { exact: true }).inputValue(), String(expected[side]), label);
    }
    await dialog.getByRole('button', { name: 'Apply crop' }).click();
    await dialog.waitFor({ state: 'detached' });
    await eventually(async () => {
      const stored = await api<ImagePiece>(ctx, `/@cms/image/${image._id}`);
      assert.deepEqual(stored.attachment.crop, expected);
      assert.deepEqual(stored.attachment.focalPoint, { x: 70, y: 25 });
    });
  });

  it('sets the focal point by a click in the crop tool, outside the box', async () => {
    const { page, ctx } = suite;
    const word = uniqueWord('focalcrop');
    const image = await wideImage(ctx, word);
    await page.goto(`${ctx.baseUrl}/admin/media`);
    await page.getByRole('button', { name: word }).click();
    await page.getByRole('button', { name: 'Crop', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Crop image' });
    await dialog.waitFor();
    const picture = dialog.locator('[data-crop-image]');
    const area = await picture.boundingBox();
    assert.ok(area);
    // The default box leaves a tenth of each side: 5% across, 5% down is outside it.
    await picture.click({ position: { x: area.width * 0.05, y: area.height * 0.05 } });
    await dialog.getByText('Now 5% across, 5% down.').waitFor();
    await eventually(async () => {
      assert.deepEqual((await api<ImagePiece>(ctx, `/@cms/image/${image._id}`)).attachment.focalPoint, { x: 5, y: 5 });
    });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('Focal point: 5% across, 5% down.').waitFor();
  });
});

describe('admin: media tags and where an image is used', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('tagger');

  it('tags an image with a new tag made inline, and filters the library by it', async () => {
    const { page, ctx } = suite;
    const word = uniqueWord('tagged');
    const tagged = await wideImage(ctx, `${word} boat`);
    await wideImage(ctx, `${word} cloud`);
    await page.goto(`${ctx.baseUrl}/admin/media`);
    await page.getByRole('button', { name: `${word} boat` }).click();
    const tags = page.getByRole('group', { name: 'Tags' });
    await tags.getByLabel('New tag').fill(`${word} harbour`);
    await tags.getByRole('button', { name: 'Add tag' }).click();
    await tags.getByRole('checkbox', { name: `${word} harbour` }).waitFor();
    await eventually(async () => assert.equal(await tags.getByRole('checkbox', { name: `${word} harbour` }).isChecked(), true));
    let tagId = '';
    await eventually(async () => {
      const stored = await api<ImagePiece & { _tags: { cmsDocId: string; title: string }[] }>(ctx, `/@cms/image/${tagged._id}`);
      assert.deepEqual(stored._tags.map((tag) => tag.title), [`${word} harbour`]);
      tagId = stored._tags[0]!.cmsDocId;
    });
    await page.getByRole('button', { name: `${word} boat` }).getByText(`Tags: ${word} harbour`).waitFor();

    // The filter lists the new tag: with it, only the tagged image of the two shows.
    await page.getByRole('searchbox', { name: 'Search images' }).fill(word);
    await page.getByRole('button', { name: `${word} cloud` }).waitFor();
    const listed = page.waitForResponse((response) => response.url().includes(`_tags%5B%5D=${tagId}`) || response.url().includes(`_tags[]=${tagId}`));
    await page.getByRole('group', { name: 'Filter by tag' }).getByRole('checkbox', { name: `${word} harbour` }).check();
    await listed;
    await eventually(async () => {
      assert.equal(await page.getByRole('button', { name: `${word} cloud` }).count(), 0);
      assert.equal(await page.getByRole('button', { name: `${word} boat` }).count(), 1);
    });
    await expectNoSeriousA11yViolations(page);
  });

  it('shows where the chosen image is used in the media picker, each a link to the document', async () => {
    const { page, ctx } = suite;
    const word = uniqueWord('shown');
    const image = await wideImage(ctx, word);
    const article = await api<{ _id: string; title: string }>(ctx, '/article?cmsLocale=en', { method: 'POST', body: { title: `${word} story`, _heroImage: [{ _id: image._id }] } });
    await page.goto(`${ctx.baseUrl}/admin/types/article/new`);
    await page.getByRole('button', { name: 'Browse media for Hero Image' }).click();
    const picker = page.getByRole('dialog', { name: 'Choose an image' });
    await picker.waitFor();
    await picker.getByRole('searchbox', { name: 'Search images' }).fill(word);
    await picker.getByRole('button', { name: word }).click();
    const usedIn = picker.getByRole('region', { name: `“${word}” is used in` });
    const link = usedIn.getByRole('link', { name: `${word} story` });
    await link.waitFor();
    assert.match((await link.getAttribute('href')) ?? '', new RegExp(`/admin/types/article/${article._id.split(':')[0]}`));
    await expectNoSeriousA11yViolations(page);

    // Chosen, the relationship's row of the image lists it too, once opened.
    await picker.getByRole('button', { name: 'Choose', exact: true }).click();
    await picker.waitFor({ state: 'hidden' });
    const row = page.getByRole('listitem').filter({ has: page.getByRole('button', { name: `Remove ${word}` }) });
    await row.getByText('Used in', { exact: true }).click();
    await row.getByRole('region', { name: 'Documents using it' }).getByRole('link', { name: `${word} story` }).waitFor();
    await expectNoSeriousA11yViolations(page);
  });
});
