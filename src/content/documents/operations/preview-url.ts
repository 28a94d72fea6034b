import type { Caller } from '../caller.js';
import type { DocumentCollaborators } from '../collaborators.js';
import type { Limits } from '../../../config/limits.js';
import type { SanitizedPieceType } from '../../types/piece-type.js';
import { InvalidRequestError, NotFoundError } from '../../../errors/app-error.js';
import { requireWrite } from '../../access/permissions.js';
import { pieceTypeOf } from '../caller.js';
import { readVersion } from '../version-reads.js';
import { audit } from '../../../core/audit.js';
import { sharedDraftOf, shareKeyProperty } from '../draft-sharing.js';
import { checkedExpiresIn, makeLink } from '../preview-links.js';
import { previewUrlOrNull, type PreviewOption } from '../../types/preview-option.js';
import { isPlainObject } from '../../../config/schema-check.js';

type PreviewUrlDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'presenter'>;

/** The answer: where the front end shows the draft, the origin the admin may post it to, and when the URL stops opening it. */
export interface PreviewUrl {
  readonly url: string;
  readonly origin: string;
  readonly expiresAt: string;
}

/**
 * POST …/:_id/preview-url (live preview): the front end's URL of the draft (`options.preview`,
 * computed here since a configured function cannot go to the browser), carrying a fresh preview
 * link of its own (`cmsShareId`, `cmsShareKey`) so that a server-rendered front end can read the
 * draft. The link lives `expiresIn` seconds, else `limits.livePreviewLinkLifetime`, and is listed
 * and revoked as any other (`…/share`). A POST: each call makes a link. Needs edit permission on
 * the draft, named by its full `_id` (404 otherwise, as sharing); a type without `preview` is a 404.
 */
export async function previewUrl(deps: PreviewUrlDeps, caller: Caller, typeName: string, rawId: string, body: unknown): Promise<PreviewUrl> {
  const { principal } = caller;
  const { limits } = deps.config;
  const type = pieceTypeOf(deps.config, typeName);
  requireWrite(principal, type, type.options.localized ? 'draft' : null);
  const lifetime = previewLifetime(body, limits);
  const preview = type.options.preview;
  if (preview === null) throw new NotFoundError(`${type.name} has no live preview: its type sets no options.preview`);
  const target = sharedDraftOf(deps.config, type, rawId);
  if (!target) throw new NotFoundError();
  const { draft, made } = await deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    const found = await readVersion(tx, type, target.id);
    if (!found || found.archived) throw new NotFoundError();
    const made = await makeLink(tx.shareLinks, { versionId: found._id, lifetime, principal, limits, now: new Date() });
    // Never the key, as for any share.
    const detail = { linkId: made.link.id, expiresAt: made.link.expiresAt, livePreview: true };
    await audit(tx, caller, { action: 'document.share', type: type.name, ids: [target.docId, target.id], detail });
    return { draft: found, made };
  });
  // The function sees the draft as its GET answers it, without the draft's own key.
  const { document } = await deps.presenter.presentOne(draft, type, principal);
  const { [shareKeyProperty]: _key, ...shown } = document;
  const url = frontEndUrl(type, preview, shown, target.locale);
  url.searchParams.set('cmsShareId', target.id);
  url.searchParams.set('cmsShareKey', made.key);
  return { url: url.href, origin: url.origin, expiresAt: made.link.expiresAt! };
}

/** `expiresIn` (an integer from 1 to `shareLinkMaxLifetime`), else the live preview default; the body may be left out. */
function previewLifetime(body: unknown, limits: Limits): number {
  if (body !== undefined && body !== null && !isPlainObject(body)) throw new InvalidRequestError('The body must be an object { expiresIn? }');
  const { expiresIn, ...others } = body ?? {};
  const unknown = Object.keys(others)[0];
  if (unknown !== undefined) throw new InvalidRequestError(`Unknown property ${unknown}: the body is { expiresIn? }`, { path: unknown });
  if (expiresIn === undefined) return Math.min(limits.livePreviewLinkLifetime, limits.shareLinkMaxLifetime);
  return checkedExpiresIn(expiresIn, limits);
}

/**
 * The configured URL of the document. A function of the configuration file that throws or
 * answers no absolute http(s) URL is the configuration's fault: a 500, its reason logged.
 */
function frontEndUrl(type: SanitizedPieceType, preview: PreviewOption, doc: Record<string, unknown>, locale: string): URL {
  const answer = preview.url(doc, { locale, mode: 'draft' });
  const url = previewUrlOrNull(answer);
  if (!url) throw new Error(`modules.${type.name}.options.preview.url answered ${JSON.stringify(answer)}: not an absolute http(s) URL`);
  return url;
}
