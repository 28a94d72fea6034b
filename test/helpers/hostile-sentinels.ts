import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestApp } from './test-app.js';
import { countAttachments, listFiles, makeImage, makePdf, uploaded, uploadsDir } from './media.js';
import type { Placeholders } from './hostile-requests.js';

/**
 * The sentinel documents of the generated hostile-input test, and snapshots of everything a
 * hostile request must not change: every version of every sentinel as admin sees it, the
 * documents each list holds, the files under uploads (with hashes) and the attachment count.
 */

export const pieceTypes = ['article', 'note', '@cms/image', '@cms/file', '@cms/user'] as const;
export type PieceType = (typeof pieceTypes)[number];
const locales = ['en', 'es'] as const;
const modes = ['draft', 'published'] as const;

export interface Sentinel {
  readonly type: PieceType;
  readonly cmsDocId: string;
  /** Who may read it without API access: everyone (published, public), guests (members only), or nobody. */
  readonly readableBy: 'everyone' | 'guests' | 'nobody';
  /** Hidden only because it is archived (a hole being fixed elsewhere). */
  readonly archived?: boolean;
}

/** An admin request that must succeed; its answer. */
export async function ok(t: TestApp, method: 'POST' | 'PATCH', url: string, body: unknown): Promise<any> {
  const res = await t.request(method, url, { body });
  assert.equal(res.status, 200, `${method} ${url}: ${res.text}`);
  return res.body;
}

/** Published, draft-only, archived, members-only, other-locale, image and file sentinels; a guest user with a token. */
export async function createSentinels(t: TestApp): Promise<{ sentinels: Sentinel[]; values: Placeholders }> {
  const user = await ok(t, 'POST', '/api/v1/@cms/user', { title: 'Sentinel', username: 'sentinel', password: 'sentinel-password-123', role: 'guest' });
  const area = { metaType: 'area', items: [{ type: '@cms/rich-text', content: '<p>Sentinel</p>' }] };
  const published = await ok(t, 'POST', '/api/v1/article', {
    title: 'Published sentinel', category: 'c', priority: 5, tags: ['news'], color: 'red', _author: [user.cmsDocId], body: area, links: [{ label: 'l', url: '/x' }],
  });
  await ok(t, 'POST', `/api/v1/article/${published.cmsDocId}/localize`, { toLocale: 'es' });
  await ok(t, 'POST', `/api/v1/article/${published.cmsDocId}:es:draft/publish`, {});
  // Without cmsMode=draft an insert is published at once, as in the original.
  const draft = await ok(t, 'POST', '/api/v1/article?cmsMode=draft', { title: 'Draft sentinel', _related: [published.cmsDocId] });
  const archived = await ok(t, 'POST', '/api/v1/article', { title: 'Archived sentinel' });
  await ok(t, 'PATCH', `/api/v1/article/${archived.cmsDocId}`, { archived: true });
  const members = await ok(t, 'POST', '/api/v1/article', { title: 'Members sentinel', visibility: 'loginRequired' });
  const note = await ok(t, 'POST', '/api/v1/note?cmsMode=draft', { title: 'Note sentinel', text: 'secret' });
  const png = await uploaded(t, 'sentinel.png', await makeImage('png', 40, 30));
  await ok(t, 'POST', '/api/v1/@cms/attachment/crop', { _id: png._id, crop: { top: 1, left: 2, width: 10, height: 8 } });
  const image = await ok(t, 'POST', '/api/v1/@cms/image', { title: 'Image sentinel', attachment: { _id: png._id, crop: { top: 1, left: 2, width: 10, height: 8 } } });
  const pdf = await uploaded(t, 'sentinel.pdf', makePdf('Sentinel'));
  const file = await ok(t, 'POST', '/api/v1/@cms/file', { title: 'File sentinel', attachment: { _id: pdf._id } });
  const login = await t.request('POST', '/api/v1/@cms/login/login', { key: null, body: { username: 'sentinel', password: 'sentinel-password-123' } });
  assert.equal(login.status, 200, login.text);
  const sentinels: Sentinel[] = [
    { type: 'article', cmsDocId: published.cmsDocId, readableBy: 'everyone' },
    { type: 'article', cmsDocId: draft.cmsDocId, readableBy: 'nobody' },
    { type: 'article', cmsDocId: archived.cmsDocId, readableBy: 'nobody', archived: true },
    { type: 'article', cmsDocId: members.cmsDocId, readableBy: 'guests' },
    { type: 'note', cmsDocId: note.cmsDocId, readableBy: 'nobody' },
    { type: '@cms/image', cmsDocId: image.cmsDocId, readableBy: 'everyone' },
    { type: '@cms/file', cmsDocId: file.cmsDocId, readableBy: 'everyone' },
    { type: '@cms/user', cmsDocId: user.cmsDocId, readableBy: 'nobody' },
  ];
  const values: Placeholders = {
    SELF: published.cmsDocId,
    WIDGET: published.body.items[0]._id,
    LINK: published.links[0]._id,
    ATTACHMENT: png._id,
    USER: user.cmsDocId,
    OTHER: draft.cmsDocId,
    TOKEN: login.body.token,
  };
  return { sentinels, values };
}

export interface Snapshot {
  readonly answers: Record<string, unknown>;
  readonly docIds: Record<string, string[]>;
  readonly files: Record<string, string>;
  readonly attachments: number;
}

/** Every version of a document as admin sees it (status and full body), and its locales. */
export async function versionsOf(t: TestApp, type: string, cmsDocId: string): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const locale of locales) {
    for (const mode of modes) {
      const res = await t.request('GET', `/api/v1/${type}/${cmsDocId}?cmsLocale=${locale}&cmsMode=${mode}&archived=any`);
      answers[`${locale}:${mode}`] = { status: res.status, body: res.body };
    }
  }
  const res = await t.request('GET', `/api/v1/${type}/${cmsDocId}/locales`);
  answers.locales = { status: res.status, body: res.body };
  return answers;
}

/** The cmsDocIds of every document of a type in one locale and mode, except those left out. */
async function listedIds(t: TestApp, type: string, locale: string, mode: string, leaveOut: ReadonlySet<string>): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const res = await t.request('GET', `/api/v1/${type}?cmsLocale=${locale}&cmsMode=${mode}&archived=any&perPage=100&page=${page}`);
    assert.equal(res.status, 200, res.text);
    ids.push(...res.body.results.map((doc: { cmsDocId: string }) => doc.cmsDocId));
    if (page >= res.body.pages) break;
  }
  return ids.filter((id) => !leaveOut.has(id)).sort();
}

async function fileHashes(t: TestApp): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const path of await listFiles(uploadsDir(t))) {
    files[path] = createHash('sha256').update(await readFile(join(uploadsDir(t), path))).digest('hex');
  }
  return files;
}

/** What must not change; `leaveOut` names the documents the test made to be changed. */
export async function snapshot(t: TestApp, sentinels: readonly Sentinel[], leaveOut: ReadonlySet<string>): Promise<Snapshot> {
  const answers: Record<string, unknown> = {};
  for (const sentinel of sentinels) answers[sentinel.cmsDocId] = await versionsOf(t, sentinel.type, sentinel.cmsDocId);
  const docIds: Record<string, string[]> = {};
  for (const type of pieceTypes) {
    for (const locale of locales) for (const mode of modes) docIds[`${type}:${locale}:${mode}`] = await listedIds(t, type, locale, mode, leaveOut);
  }
  return { answers, docIds, files: await fileHashes(t), attachments: await countAttachments(t) };
}

