import { createHash, randomBytes } from 'node:crypto';
import type { Limits } from '../../config/limits.js';
import type { Principal } from '../../core/principal.js';
import type { ShareLinkStore, StoredShareLink } from '../../storage/storage-adapter.js';
import { ConflictError, InvalidRequestError } from '../../errors/app-error.js';
import { newId } from '../../core/ids.js';
import { updatedBy } from './new-version.js';

/*
 * Preview links that expire (issue 25): `POST :_id/share` with `expiresIn` (or with the
 * configured default lifetime, `limits.shareLinkLifetime`) makes a link of its own, kept in the
 * share_links table, besides the original's never-expiring key held by the draft
 * (`draft-sharing.ts`). A draft may have several, each revoked alone; a shared read names one by
 * its key exactly as it names the draft's key. Only the digest of a link's key is kept.
 */

/** The id under which the editor's list shows the draft's own key (the original's, never expiring). */
export const permanentLinkId = 'permanent';

// 256 bits from the system's cryptographic source, as the draft's key.
const linkKeyBytes = 32;

/** A link's key digest: what the store keeps and a shared read looks up. */
export function linkDigest(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

/**
 * The lifetime in seconds a share asks for: `expiresIn` (an integer from 1 to
 * `shareLinkMaxLifetime`), else the configured default; 0 is the original's never-expiring key.
 */
export function requestedLifetime(body: Readonly<Record<string, unknown>>, limits: Limits): number {
  const { expiresIn } = body;
  if (expiresIn === undefined || expiresIn === null) return Math.min(limits.shareLinkLifetime, limits.shareLinkMaxLifetime);
  if (body.share !== true) throw new InvalidRequestError('expiresIn goes with share: true', { path: 'expiresIn' });
  return checkedExpiresIn(expiresIn, limits);
}

/** An `expiresIn` sent: an integer from 1 to `shareLinkMaxLifetime` (seconds), else a 400. */
export function checkedExpiresIn(expiresIn: unknown, limits: Limits): number {
  const max = limits.shareLinkMaxLifetime;
  if (typeof expiresIn !== 'number' || !Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > max) {
    throw new InvalidRequestError(`expiresIn must be an integer from 1 to ${max} (seconds)`, { path: 'expiresIn', max });
  }
  return expiresIn;
}

/** A link made now: its stored row and the key, which is shown this once. */
export interface MadeLink {
  readonly link: StoredShareLink;
  readonly key: string;
}

/**
 * Makes a link of the draft that lives `lifetime` seconds, in the caller's transaction: the
 * draft's expired links go first, and a draft already at `shareLinksPerDraft` live links is
 * refused (409) rather than growing without bound.
 */
export async function makeLink(store: ShareLinkStore, args: { versionId: string; lifetime: number; principal: Principal; limits: Limits; now: Date }): Promise<MadeLink> {
  const { versionId, now } = args;
  const nowText = now.toISOString();
  await store.removeAll(versionId, nowText);
  const live = await store.listLive(versionId, nowText);
  if (live.length >= args.limits.shareLinksPerDraft) {
    throw new ConflictError(`This draft already has ${live.length} live preview links: revoke one first`, { max: args.limits.shareLinksPerDraft });
  }
  const key = randomBytes(linkKeyBytes).toString('base64url');
  const link: StoredShareLink = {
    id: newId(),
    versionId,
    digest: linkDigest(key),
    createdAt: nowText,
    createdBy: JSON.stringify(updatedBy(args.principal)),
    expiresAt: new Date(now.getTime() + args.lifetime * 1000).toISOString(),
  };
  await store.insert(link);
  return { link, key };
}

/** Whether the link the key names opens this draft at `now`: its own draft, not expired. */
export async function linkOpens(store: ShareLinkStore, versionId: string, key: string, now: Date): Promise<boolean> {
  const link = await store.findByDigest(linkDigest(key));
  return link !== null && link.versionId === versionId && (link.expiresAt === null || link.expiresAt > now.toISOString());
}

/** A link as the editor's list shows it (never its key). */
export interface LinkOutput {
  readonly _id: string;
  readonly createdAt: string | null;
  readonly createdBy: unknown;
  readonly expiresAt: string | null;
}

export function linkOutput(link: StoredShareLink): LinkOutput {
  return { _id: link.id, createdAt: link.createdAt, createdBy: JSON.parse(link.createdBy) as unknown, expiresAt: link.expiresAt };
}

/** The draft's own key in the list: when and by whom it was made is not known. */
export const permanentLinkOutput: LinkOutput = Object.freeze({ _id: permanentLinkId, createdAt: null, createdBy: null, expiresAt: null });
