import { assertReviewed } from '../review-state.js';
import type { StorageSession, StoredDocument } from '../../../storage/storage-adapter.js';
import type { SanitizedPieceType } from '../../types/piece-type.js';
import type { Caller } from '../caller.js';
import type { DocumentCollaborators, DocumentOutput, VersionOutput } from '../collaborators.js';
import { requireWrite } from '../../access/permissions.js';
import { newId, type Mode } from '../../../core/ids.js';
import { pieceTypeOf, requestVersion } from '../caller.js';
import { newVersion } from '../new-version.js';
import { settleNames } from '../archived-names.js';
import { saveLogin } from '../user-logins.js';
import { isShareable } from '../draft-sharing.js';

type InsertDeps = Pick<DocumentCollaborators, 'config' | 'transactions' | 'conversion' | 'versions' | 'changes' | 'presenter'>;

export interface InsertOptions {
  /**
   * A condition on the store, checked in the insert's own transaction: no other write, from
   * this process or another, can come between it and the insert (the first-run setup's one user).
   */
  readonly onlyIf?: (tx: StorageSession) => Promise<void>;
  /** What `onlyIf` reads, held from the transaction's start. */
  readonly lock?: readonly string[];
}

/**
 * POST /api/v1/<type>: a published insert (the default) also creates the draft; a draft insert
 * creates only the draft, and the published version too for an autopublishing type.
 * `_newInstance` saves nothing and answers what a new document starts as.
 */
export async function insert(
  deps: InsertDeps,
  caller: Caller,
  typeName: string,
  body: Record<string, unknown>,
  options: InsertOptions = {},
): Promise<VersionOutput> {
  const { principal } = caller;
  const type = pieceTypeOf(deps.config, typeName);
  const { locale, mode } = requestVersion(deps.config, type, caller);
  requireWrite(principal, type, mode);
  if (body._newInstance) return { document: newInstance(deps, type, body), validator: null };
  const saved = await deps.transactions.runWithPasswords({ lock: options.lock }, async (tx, passwords) => {
    await options.onlyIf?.(tx);
    const values = await deps.conversion.convert({ type, input: body, locale, mode, principal, session: tx, passwords });
    const now = new Date().toISOString();
    const docId = newId();
    const version = (versionMode: Mode | null) => newVersion({ type, docId, locale, mode: versionMode, values, now, principal });
    const doc = mode === null ? await insertUnlocalized(deps, tx, type, version(null)) : await insertLocalized(deps, tx, type, { mode, now, version });
    return deps.changes.recorded(tx, 'insert', doc, caller);
  });
  return deps.presenter.presentOne(saved, type, principal);
}

/** A type without locales and modes (users): one version, and a user's login beside it. */
async function insertUnlocalized(deps: InsertDeps, tx: StorageSession, type: SanitizedPieceType, doc: StoredDocument): Promise<StoredDocument> {
  await settleNames(tx, type, [doc]);
  await saveLogin(tx, type, doc);
  await deps.versions.insert(tx, doc);
  return doc;
}

/** The draft, and the published version unless only a draft was asked for; answers the one asked for. */
async function insertLocalized(
  deps: InsertDeps,
  tx: StorageSession,
  type: SanitizedPieceType,
  args: { mode: 'draft' | 'published'; now: string; version: (mode: Mode) => StoredDocument },
): Promise<StoredDocument> {
  const { mode, now, version } = args;
  const draft = version('draft');
  if (mode === 'draft' && !type.options.autopublish) {
    draft.modified = true;
    await settleNames(tx, type, [draft]);
    await deps.versions.insert(tx, draft);
    return draft;
  }
  // A type with review stages publishes no new document: its draft starts at the first stage (review-state.ts).
  assertReviewed(type, draft);
  const published = version('published');
  published.lastPublishedAt = draft.lastPublishedAt = now;
  draft.modified = false;
  await settleNames(tx, type, [draft, published]);
  await deps.versions.insert(tx, draft);
  await deps.versions.insert(tx, published);
  return mode === 'draft' ? draft : published;
}

/**
 * The original's `_newInstance` (facts 4.1): the schema defaults with the rest of the body
 * over them, as sent, and whether the type has a page or front end to preview; never a `_url`.
 */
function newInstance(deps: Pick<InsertDeps, 'conversion'>, type: SanitizedPieceType, body: Record<string, unknown>): DocumentOutput {
  const { _newInstance: _flag, ...rest } = body;
  const instance: DocumentOutput = { ...deps.conversion.newInstance(type), type: type.name, ...rest };
  delete instance._url;
  return { ...instance, _previewable: isShareable(type) };
}
