import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { browserSkipReason, expectNoSeriousA11yViolations } from '../helpers/browser.js';
import { adminTestConfig, signedInAdminSuite } from '../helpers/admin-app.js';
import { eventually } from './flow-support.js';

/**
 * Reordering by dragging (SortableJS, real pointer moves in steps) and by the drag handle's arrow
 * keys, in an area, an array and a relationship, and inserting a widget between two; every order
 * is checked through the API after "Save draft".
 */
interface Widget { _id: string; type: string; content?: string }

const richText = (text: string) => ({ metaType: 'widget', type: '@cms/rich-text', content: `<p>${text}</p>` });
const texts = (items: Widget[]) => items.map((item) => (item.content ?? '').replace(/<[^>]+>/g, ''));

/**
 * Presses the mouse on `handle` and releases it just above `target`, moving in steps as a hand
 * would. Both must be on screen at once: the page is made tall enough.
 */
async function dragAbove(page: Page, handle: Locator, target: Locator): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 2600 });
  await handle.scrollIntoViewIfNeeded();
  const from = await handle.boundingBox();
  const to = await target.boundingBox();
  assert.ok(from && to, 'the handle and the target are on screen');
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 - 10, { steps: 5 });
  await page.mouse.move(to.x + to.width / 2, to.y + 5, { steps: 20 });
  await page.mouse.move(to.x + to.width / 2, to.y + 2, { steps: 5 });
  await page.mouse.up();
  await page.setViewportSize({ width: 1280, height: 720 });
}

async function saveDraft(page: Page): Promise<void> {
  const saved = page.waitForResponse((response) => response.url().includes('/api/v1/') && ['PUT', 'PATCH', 'POST'].includes(response.request().method()));
  await page.getByRole('button', { name: 'Save draft' }).click();
  const response = await saved;
  assert.ok(response.ok(), `saving answered ${response.status()}`);
}

describe('admin: drag and drop, and the keyboard, reorder areas, arrays and relationships', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('mover', 'Mona Mover');

  async function articleWithWidgets(title: string, words: string[]): Promise<string> {
    const created = await suite.site.t.request('POST', '/api/v1/article?cmsMode=draft', {
      body: { title, body: { metaType: 'area', items: words.map(richText) } },
    });
    assert.equal(created.status, 200, created.text);
    await suite.page.goto(`/admin/types/article/${created.body.cmsDocId}`);
    await suite.page.getByRole('textbox', { name: `Body: Rich Text ${words.length}` }).waitFor();
    return created.body.cmsDocId as string;
  }

  async function bodyOf(docId: string): Promise<string[]> {
    const saved = await suite.site.t.request('GET', `/api/v1/article/${docId}?cmsMode=draft`);
    assert.equal(saved.status, 200, saved.text);
    return texts(saved.body.body.items as Widget[]);
  }

  it('drags a widget to the top of its area with the mouse, and saves that order', async () => {
    const { page } = suite;
    const docId = await articleWithWidgets('Dragged widgets', ['Alpha', 'Bravo', 'Charlie']);
    await dragAbove(page, page.getByRole('button', { name: 'Reorder Rich Text 3, position 3 of 3' }),
      page.getByRole('button', { name: 'Reorder Rich Text 1, position 1 of 3' }));
    await page.getByRole('textbox', { name: 'Body: Rich Text 1' }).getByText('Charlie').waitFor();
    await saveDraft(page);
    assert.deepEqual(await bodyOf(docId), ['Charlie', 'Alpha', 'Bravo']);
  });

  it('moves a widget with its handle and the arrow keys, keeping focus on the handle, announcing the move, and autosaves it', async () => {
    const { page } = suite;
    const docId = await articleWithWidgets('Keyboard widgets', ['One', 'Two', 'Three']);
    await page.getByRole('button', { name: 'Reorder Rich Text 1, position 1 of 3' }).focus();
    await page.keyboard.press('ArrowDown');
    await page.getByText('Moved to position 2 of 3').waitFor();
    const focused = page.locator(':focus');
    assert.equal(await focused.getAttribute('aria-label'), 'Reorder Rich Text 2, position 2 of 3');
    await page.keyboard.press('ArrowDown');
    await page.getByText('Moved to position 3 of 3').waitFor();
    assert.equal(await page.locator(':focus').getAttribute('aria-label'), 'Reorder Rich Text 3, position 3 of 3');
    // At the end, ArrowDown does nothing.
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.locator(':focus').getAttribute('aria-label'), 'Reorder Rich Text 3, position 3 of 3');
    await expectNoSeriousA11yViolations(page);
    // A move is an edit as any other: autosave saves it, with no click anywhere.
    await eventually(async () => assert.deepEqual(await bodyOf(docId), ['Two', 'Three', 'One']), 15_000);
  });

  it('inserts a widget between two, and at the top', async () => {
    const { page } = suite;
    const docId = await articleWithWidgets('Inserted widgets', ['First', 'Last']);
    await page.getByRole('button', { name: 'Insert content before Rich Text 2 in Body' }).click();
    await page.getByRole('menuitem', { name: 'Rich Text' }).click();
    const middle = page.getByRole('textbox', { name: 'Body: Rich Text 2' });
    await middle.click();
    await page.keyboard.type('Middle');
    await page.getByRole('button', { name: 'Insert content before Rich Text 1 in Body' }).click();
    await page.getByRole('menuitem', { name: 'Rich Text' }).click();
    await page.getByRole('textbox', { name: 'Body: Rich Text 1' }).click();
    await page.keyboard.type('Top');
    await saveDraft(page);
    assert.deepEqual(await bodyOf(docId), ['Top', 'First', 'Middle', 'Last']);
  });

  it('drags an array item to the top and saves that order', async () => {
    const { page } = suite;
    const created = await suite.site.t.request('POST', '/api/v1/playlist?cmsMode=draft', {
      body: { title: 'Dragged tracks', tracks: [{ title: 'One' }, { title: 'Two' }, { title: 'Three' }] },
    });
    assert.equal(created.status, 200, created.text);
    await page.goto(`/admin/types/playlist/${created.body.cmsDocId}`);
    const third = page.getByRole('button', { name: 'Reorder item 3, position 3 of 3' });
    await dragAbove(page, third, page.getByRole('button', { name: 'Reorder item 1, position 1 of 3' }));
    await page.getByRole('button', { name: '1. Three' }).waitFor();
    await saveDraft(page);
    const saved = await suite.site.t.request('GET', `/api/v1/playlist/${created.body.cmsDocId}?cmsMode=draft`);
    assert.deepEqual((saved.body.tracks as { title: string }[]).map((track) => track.title), ['Three', 'One', 'Two']);
  });

  it('reorders the documents of a relationship with the handle and with the mouse, and saves that order', async () => {
    const { page, site } = suite;
    const related = [];
    for (const title of ['Rel A', 'Rel B', 'Rel C']) {
      const doc = await site.t.request('POST', '/api/v1/article?cmsMode=draft', { body: { title } });
      assert.equal(doc.status, 200, doc.text);
      related.push(doc.body);
    }
    const holder = await site.t.request('POST', '/api/v1/article?cmsMode=draft', {
      body: { title: 'Relating in order', _related: related.map((doc) => ({ _id: doc._id })) },
    });
    assert.equal(holder.status, 200, holder.text);
    await page.goto(`/admin/types/article/${holder.body.cmsDocId}`);
    await page.getByRole('button', { name: 'Reorder Rel A, position 1 of 3' }).focus();
    await page.keyboard.press('End');
    await page.getByText('Moved to position 3 of 3').waitFor();
    assert.equal(await page.locator(':focus').getAttribute('aria-label'), 'Reorder Rel A, position 3 of 3');
    await dragAbove(page, page.getByRole('button', { name: 'Reorder Rel C, position 2 of 3' }),
      page.getByRole('button', { name: 'Reorder Rel B, position 1 of 3' }));
    await page.getByRole('button', { name: 'Reorder Rel C, position 1 of 3' }).waitFor();
    await saveDraft(page);
    const saved = await site.t.request('GET', `/api/v1/article/${holder.body.cmsDocId}?cmsMode=draft`);
    assert.deepEqual((saved.body._related as { title: string }[]).map((doc) => doc.title), ['Rel C', 'Rel B', 'Rel A']);
  });
});

/** A board's body allows rich text and callouts; a callout's own area allows rich text only. */
function nestedAreaConfig(): Record<string, unknown> {
  const config = adminTestConfig();
  return {
    ...config,
    widgets: {
      callout: {
        fields: { add: { heading: { type: 'string' }, inner: { type: 'area', options: { widgets: { '@cms/rich-text': {} } } } } },
      },
    },
    modules: {
      ...(config.modules as Record<string, unknown>),
      board: {
        extend: '@cms/piece-type',
        options: { label: 'Board' },
        fields: { add: { body: { type: 'area', options: { widgets: { '@cms/rich-text': {}, callout: {} } } } } },
      },
    },
  };
}

describe('admin: a drag stays within its own area', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('nester', 'Nina Nester', nestedAreaConfig);

  it('never drags a widget between a nested area and the area around it; within the nested one, it moves', async () => {
    const { page, site } = suite;
    const created = await site.t.request('POST', '/api/v1/board?cmsMode=draft', {
      body: {
        title: 'Nested areas',
        body: {
          metaType: 'area',
          items: [
            { metaType: 'widget', type: 'callout', heading: 'Box', inner: { metaType: 'area', items: [richText('Inner one'), richText('Inner two')] } },
            richText('Outer A'),
            richText('Outer B'),
          ],
        },
      },
    });
    assert.equal(created.status, 200, created.text);
    await page.goto(`/admin/types/board/${created.body.cmsDocId}`);
    const innerSecond = page.getByRole('button', { name: 'Reorder Rich Text 2, position 2 of 2' });
    await innerSecond.waitFor();
    // Out of the callout into the body, and from the body into the callout: no widget changes area.
    await dragAbove(page, innerSecond, page.getByRole('button', { name: 'Reorder Rich Text 3, position 3 of 3' }));
    await dragAbove(page, page.getByRole('button', { name: 'Reorder Rich Text 3, position 3 of 3' }),
      page.getByRole('button', { name: 'Reorder Rich Text 1, position 1 of 2' }));
    // Within the callout's own area, a drag moves it.
    await dragAbove(page, page.getByRole('button', { name: 'Reorder Rich Text 2, position 2 of 2' }),
      page.getByRole('button', { name: 'Reorder Rich Text 1, position 1 of 2' }));
    await page.getByRole('textbox', { name: 'Inner: Rich Text 1' }).getByText('Inner two').waitFor();
    await saveDraft(page);
    const saved = await site.t.request('GET', `/api/v1/board/${created.body.cmsDocId}?cmsMode=draft`);
    const items = saved.body.body.items as (Widget & { inner?: { items: Widget[] } })[];
    const callouts = items.filter((item) => item.type === 'callout');
    assert.equal(callouts.length, 1);
    assert.deepEqual(texts(items.filter((item) => item.type !== 'callout')).sort(), ['Outer A', 'Outer B']);
    assert.deepEqual(texts(callouts[0]!.inner!.items), ['Inner two', 'Inner one']);
  });
});
