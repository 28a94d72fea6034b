import type { Caller } from '../caller.js';
import type { DocumentCollaborators, VersionOutput } from '../collaborators.js';
import { NotFoundError } from '../../../errors/app-error.js';
import { requireWrite } from '../../access/permissions.js';
import { pieceTypeOf } from '../caller.js';
import { readVersion } from '../version-reads.js';
import { audit } from '../../../core/audit.js';
import { isShareable, setShareKey, shareFlagOf, sharedDraftOf, shareKeyProperty } from '../draft-sharing.js';
import { makeLink, requestedLifetime, type MadeLink } from '../preview-links.js';

type ShareDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'versions' | 'presenter'>;

/**
 * POST …/:_id/share: `{ "share": true }` gives the draft a share key (`draft-sharing.ts`), or,
 * with `expiresIn` or a configured default lifetime, makes a preview link of its own that
 * expires (`preview-links.ts`); `false` takes the key and every link away. Answers the draft,
 * with the key when shared (and a link's `cmsShareLinkId` and `cmsShareExpiresAt`). Only a full
 * draft `_id` names it, and only a live draft the caller may edit is found (404 otherwise, as
 * the original). Sharing changes no content: `updatedAt`, the draft's validator, stays.
 */
export async function share(deps: ShareDeps, caller: Caller, typeName: string, rawId: string, body: Record<string, unknown>): Promise<VersionOutput> {
  const { principal } = caller;
  const { limits } = deps.config;
  const type = pieceTypeOf(deps.config, typeName);
  requireWrite(principal, type, type.options.localized ? 'draft' : null);
  const shared = shareFlagOf(body);
  const lifetime = requestedLifetime(body, limits);
  const target = sharedDraftOf(deps.config, type, rawId);
  if (!target) throw new NotFoundError();
  const { draft, made } = await deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    const found = await readVersion(tx, type, target.id);
    if (!found || found.archived) throw new NotFoundError();
    // Never the key: whoever reads the trail learns that a draft was shared, not how to read it.
    const ids = [target.docId, target.id];
    // A type without a page or a preview has no URL to share: nothing changes, as in the original.
    if (shared && lifetime > 0 && isShareable(type)) {
      const made = await makeLink(tx.shareLinks, { versionId: found._id, lifetime, principal, limits, now: new Date() });
      await audit(tx, caller, { action: 'document.share', type: type.name, ids, detail: { linkId: made.link.id, expiresAt: made.link.expiresAt } });
      return { draft: found, made };
    }
    const changed = setShareKey(type, found, shared);
    if (changed) await deps.versions.updateBookkeeping(tx, found);
    const revoked = shared ? 0 : await tx.shareLinks.removeAll(found._id);
    if (changed || revoked > 0) await audit(tx, caller, { action: shared ? 'document.share' : 'document.unshare', type: type.name, ids });
    return { draft: found, made: null };
  });
  const output = await deps.presenter.presentOne(draft, type, principal);
  return made ? withLink(output, made) : output;
}

/** The draft as answered for a link just made: its key (shown this once), id and expiry. */
function withLink(output: VersionOutput, { link, key }: MadeLink): VersionOutput {
  const document = { ...output.document, [shareKeyProperty]: key, cmsShareLinkId: link.id, cmsShareExpiresAt: link.expiresAt };
  return { ...output, document };
}
