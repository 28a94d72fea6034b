import type { AppConfig } from '../app-config.js';
import type { Role } from '../../core/principal.js';
import type { ChangeLogStore, DocumentStore, HistoryStore, IdempotencyKeyStore, ScheduleStore, ShareLinkStore } from '../../storage/storage-adapter.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';
import type { Choice } from '../fields/field-type.js';
import type { DocumentIndexer } from '../indexing/document-indexer.js';
import type { ListQueries } from '../query/list-query.js';
import type { AreaRenderer } from '../rendering/area-renderer.js';
import type { ChangeRecorder } from './change-recorder.js';
import type { Conversion } from './conversion.js';
import type { DocumentPresenter } from './present.js';
import type { SchemaValueReader } from './schema-value-reader.js';
import type { TransactionRunner } from './transaction-runner.js';
import type { VersionWriter } from './version-writer.js';
import type { ImageRecrop } from './image-recrop.js';
import type { MediaInUse } from './media-in-use.js';
import type { FollowUpFailure } from './image-recrop.js';

/**
 * What the document operations work with, built once by the composition root (`app.ts`). Each
 * operation takes the few it uses (a `Pick` of these), so its signature says what it touches.
 */
export interface DocumentCollaborators {
  readonly config: AppConfig;
  readonly fieldTypes: FieldTypeLookup;
  /** Reads outside a transaction (list, get-one, locales); writes go through `transactions`. */
  readonly store: DocumentStore;
  /** History reads outside a transaction; its writes follow the changes (HistoryRecorder). */
  readonly history: HistoryStore;
  /** Preview links, read outside a transaction (a shared read, the editor's list). */
  readonly shareLinks: ShareLinkStore;
  /** The records of writes sent with an `Idempotency-Key`, read outside a transaction before a write (idempotency.ts). */
  readonly idempotencyKeys: IdempotencyKeyStore;
  /** The change log, read outside a transaction (the sync API); its writes follow the changes (ChangeRecorder). */
  readonly changeLog: ChangeLogStore;
  /** The due-time index, peeked outside a transaction before a claim (ScheduleRunner). */
  readonly schedules: ScheduleStore;
  /** The roles of the API keys now, for the schedules they set (ScheduleRunner). */
  readonly apiKeys: ApiKeyRoles;
  readonly transactions: TransactionRunner;
  readonly versions: VersionWriter;
  readonly conversion: Conversion;
  readonly values: SchemaValueReader;
  readonly presenter: DocumentPresenter;
  readonly changes: ChangeRecorder;
  readonly queries: ListQueries;
  readonly indexer: DocumentIndexer;
  readonly areas: AreaRenderer;
  /** Replacing an image's file brings the crops of the relationships showing it up to date. */
  readonly imageRecrop: ImageRecrop;
  /** Deleting or archiving an image or file that published documents show is refused unless forced. */
  readonly inUse: MediaInUse;
  /** Told when work that follows a committed write fails (keeping an idempotent write's answer). */
  readonly onFollowUpFailure?: FollowUpFailure;
}

/** An API key as it is now, by its caller id (`Caller.keyCallerId`): its role and a stored key's id; null: it is revoked or no longer configured. */
export interface ApiKeyRoles {
  keyOf(callerId: string): Promise<{ readonly role: Role; readonly keyId?: string } | null>;
}

/** A version as a response shows it. */
export type DocumentOutput = Record<string, unknown>;

export type { VersionOutput } from './present.js';

export interface ListResult {
  pages: number;
  currentPage: number;
  /** The page after this one (`?cursor=`), null on the last; see list-cursor.ts. */
  nextCursor: string | null;
  results: DocumentOutput[];
  choices?: Record<string, Choice[]>;
  counts?: Record<string, Choice[]>;
}
