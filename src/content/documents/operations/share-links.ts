import type { Caller } from '../caller.js';
import type { DocumentCollaborators } from '../collaborators.js';
import { NotFoundError } from '../../../errors/app-error.js';
import { requireWrite } from '../../access/permissions.js';
import { pieceTypeOf } from '../caller.js';
import { sharedDraftOf, shareKeyProperty } from '../draft-sharing.js';
import { linkOutput, permanentLinkOutput, type LinkOutput } from '../preview-links.js';

type ShareLinksDeps = Pick<DocumentCollaborators, 'config' | 'store' | 'shareLinks'>;

/**
 * GET …/:_id/share: the live preview links of a draft, newest first, the draft's own
 * never-expiring key (`_id: "permanent"`) last when it has one. Never a key: a link's key is
 * shown once, when it is made. Needs edit permission on the draft (404 otherwise, as the share
 * route). An archived draft is listed too: archiving ends its links (`endSharing`), so its
 * list is empty unless it was archived before that rule.
 */
export async function shareLinks(deps: ShareLinksDeps, caller: Caller, typeName: string, rawId: string): Promise<{ results: LinkOutput[] }> {
  const type = pieceTypeOf(deps.config, typeName);
  requireWrite(caller.principal, type, type.options.localized ? 'draft' : null);
  const target = sharedDraftOf(deps.config, type, rawId);
  if (!target) throw new NotFoundError();
  // An archived draft too: what it still has is listed, to be revoked.
  const [draft] = await deps.store.find({ ids: [target.id], type: type.name, limit: 1 });
  if (!draft) throw new NotFoundError();
  const links = (await deps.shareLinks.listLive(draft._id, new Date().toISOString())).map(linkOutput);
  return { results: typeof draft[shareKeyProperty] === 'string' ? [...links, permanentLinkOutput] : links };
}
