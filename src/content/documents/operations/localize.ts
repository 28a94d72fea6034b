import type { Principal } from '../../../core/principal.js';
import type { StoredDocument } from '../../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../../types/piece-type.js';
import type { Caller } from '../caller.js';
import type { DocumentCollaborators, VersionOutput } from '../collaborators.js';
import { ConflictError, InvalidRequestError } from '../../../errors/app-error.js';
import { requireWrite } from '../../access/permissions.js';
import { localizedTarget, versionId } from '../caller.js';
import { readVersion, requireVersion } from '../version-reads.js';
import { newVersion, touch } from '../new-version.js';
import { assignSlug } from '../slugs.js';
import { publishDraft, refreshModified } from '../publishing-steps.js';

type LocalizeDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'versions' | 'values' | 'conversion' | 'changes' | 'presenter'>;

/**
 * POST …/:_id/localize: copies the draft into another locale's draft (and publishes it there for an
 * autopublishing type); 409 when it exists and `update` is not set. Over an existing draft, the
 * relationships the caller may not read and password hashes stay as stored there.
 */
export async function localize(deps: LocalizeDeps, caller: Caller, typeName: string, rawId: string, body: Record<string, unknown>): Promise<VersionOutput> {
  const { principal } = caller;
  const { type, target } = localizedTarget(deps.config, caller, typeName, rawId);
  const toLocale = body.toLocale;
  if (typeof toLocale !== 'string' || !deps.config.locales.has(toLocale) || toLocale === target.locale) {
    throw new InvalidRequestError('toLocale must name another configured locale', { path: 'toLocale' });
  }
  requireWrite(principal, type, 'draft');
  const localized = await deps.transactions.runOnDocument({ caller, type, set: target }, async (tx) => {
    const source = await requireVersion(tx, type, versionId(target, 'draft'));
    const destination = { docId: target.docId, locale: toLocale };
    const existing = await readVersion(tx, type, versionId(destination, 'draft'));
    if (existing && !body.update) throw new ConflictError('The document already exists in that locale');
    const now = new Date().toISOString();
    const values = valuesFor(deps, { type, source, existing, principal });
    const draft = existing ?? newVersion({ type, docId: target.docId, locale: toLocale, mode: 'draft', values, now, principal });
    Object.assign(draft, values, { localizedAt: now });
    touch(draft, now, principal);
    await assignSlug(tx, type, [draft]);
    await (existing ? deps.versions.update(tx, draft) : deps.versions.insert(tx, draft));
    await refreshModified(deps, tx, type, destination);
    // A draft save of an autopublishing type (images, files) publishes it (facts 4.5): a
    // localized image shows in the published documents of its new locale too.
    if (type.options.autopublish) await publishDraft(deps, tx, type, destination, principal);
    return deps.changes.recorded(tx, existing ? 'update' : 'insert', (await readVersion(tx, type, draft._id))!, caller, 'localize');
  });
  return deps.presenter.presentOne(localized, type, principal);
}

/**
 * The source's schema values; over an existing draft, a copy (the source stays as it is) that
 * keeps what the caller may not set there as it is stored, as a PATCH would.
 */
function valuesFor(deps: LocalizeDeps, args: { type: SanitizedPieceType; source: StoredDocument; existing: StoredDocument | null; principal: Principal }): Record<string, unknown> {
  const values = deps.values.schemaValues(args.type, args.source);
  if (!args.existing) return values;
  const copy = structuredClone(values);
  deps.conversion.keepStoredValues({ type: args.type, principal: args.principal, values: copy, current: args.existing });
  return copy;
}
