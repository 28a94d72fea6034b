import type { AppConfig } from './content/app-config.js';
import type { StorageAdapter } from './storage/storage-adapter.js';
import { createFieldTypeRegistry, type FieldTypeRegistry } from './content/fields/registry.js';
import type { PasswordHasher } from './content/fields/password-hasher.js';
import { documentOperations, type DocumentOperations } from './content/documents/document-operations.js';
import { SchemaValueReader } from './content/documents/schema-value-reader.js';
import { DocumentIndexer } from './content/indexing/document-indexer.js';
import { ReverseBookkeeping } from './content/documents/reverse-bookkeeping.js';
import { MediaInUse } from './content/documents/media-in-use.js';
import { AttachmentAnnotator, AttachmentRefs, type AttachmentFileKeeper, type AttachmentPresenter } from './content/documents/attachment-refs.js';
import { DocumentPresenter } from './content/documents/present.js';
import { ChangeRecorder } from './content/documents/change-recorder.js';
import { PriorVisibility } from './content/documents/prior-visibility.js';
import { HistoryRecorder } from './content/documents/history-recorder.js';
import { ChangeSubscriptions } from './content/documents/change-events.js';
import { AttachmentUsage } from './content/documents/attachment-usage.js';
import { VersionWriter } from './content/documents/version-writer.js';
import { TransactionRunner } from './content/documents/transaction-runner.js';
import { ImageRecrop, type AttachmentCropMaker, type FollowUpFailure } from './content/documents/image-recrop.js';
import { Conversion } from './content/documents/conversion.js';
import { ListQueries } from './content/query/list-query.js';
import { AreaRenderer } from './content/rendering/area-renderer.js';
import { builtInWidgetRenderers } from './content/rendering/widget-renderers.js';
import { createVersionEditCheck } from './content/access/version-edits.js';
import type { PasswordVerifier } from './auth/token-service.js';
import { ScryptPasswordHasher } from './auth/passwords.js';
import { ApiKeys } from './auth/api-keys.js';
import { StoredApiKeys } from './auth/stored-api-keys.js';
import { KeyRoles } from './auth/key-roles.js';
import { MediaService } from './media/media-service.js';
import type { FileStorage } from './media/file-storage.js';
import { createFileStorage } from './media/create-file-storage.js';
import { createSharpImageProcessor, type ImageProcessor } from './media/image-processor.js';
import { imageSizes } from './media/image-sizes.js';
import { UploadBudget } from './media/upload-budget.js';
import { BoundedPool } from './core/bounded-pool.js';
import { LinkBase } from './config/link-base.js';

/*
 * The content layer as the server and the command line use it: the document operations over
 * their collaborators, and the media service. Part of the composition root (`app.ts`), apart
 * so that the command line can have it without loading Fastify.
 */

/** What the document operations need from outside the content layer. */
export interface DocumentOperationsDeps {
  readonly config: AppConfig;
  readonly storage: StorageAdapter;
  readonly fieldTypes: FieldTypeRegistry;
  /** The response form of attachments held in documents, and their files (the media module). */
  readonly attachments: AttachmentPresenter & AttachmentFileKeeper & AttachmentCropMaker;
  readonly passwordHasher: PasswordHasher;
  /** The media module's image sizes, for `srcset` in rendered image widgets (none: no `srcset`). */
  readonly imageSizes?: readonly { readonly name: string; readonly width: number }[];
  /** Where `_url` and `_parentUrl` start; default: the configured `baseUrl`, relative links without one. */
  readonly links?: LinkBase;
  /** Called once a transaction that wrote change events to the webhook outbox has committed. */
  readonly onChangesCommitted?: () => void;
  /** Called once a transaction that logged changes has committed. */
  readonly onChangesLogged?: () => void;
  /** Told when work that follows a committed write fails (none: the write's caller gets the error). */
  readonly onFollowUpFailure?: FollowUpFailure;
}

/** The document operations, over their collaborators built here one by one (`content/documents/collaborators.ts`). */
export function buildDocumentOperations(deps: DocumentOperationsDeps): DocumentOperations {
  const { config, storage, fieldTypes } = deps;
  const values = new SchemaValueReader(fieldTypes, config.widgetTypes);
  const indexer = new DocumentIndexer(fieldTypes);
  const refs = new AttachmentRefs({ registry: fieldTypes, widgetTypes: config.widgetTypes });
  const presenter = new DocumentPresenter({
    config,
    links: deps.links ?? new LinkBase(config.baseUrl),
    values,
    store: storage.documents,
    attachments: new AttachmentAnnotator({ refs, store: storage.attachments, presenter: deps.attachments }),
    registry: fieldTypes,
  });
  const history = new HistoryRecorder({ config, values });
  const prior = new PriorVisibility();
  const changes = new ChangeRecorder({ config, subscriptions: new ChangeSubscriptions(config.webhooks), presenter, history, prior });
  const usage = new AttachmentUsage();
  const transactions = new TransactionRunner({
    storage,
    usage,
    changes,
    files: deps.attachments,
    passwordHasher: deps.passwordHasher,
    passwordMinLength: config.limits.passwordMinLength,
    advisoryLockTimeout: config.limits.advisoryLockTimeout,
    onChangesCommitted: deps.onChangesCommitted,
    onChangesLogged: deps.onChangesLogged,
  });
  const reverse = new ReverseBookkeeping({ config, registry: fieldTypes });
  const versions = new VersionWriter({ config, indexer, refs, usage, reverse, history, prior });
  return documentOperations({
    config,
    fieldTypes,
    store: storage.documents,
    history: storage.history,
    shareLinks: storage.shareLinks,
    idempotencyKeys: storage.idempotencyKeys,
    schedules: storage.schedules,
    changeLog: storage.changes,
    apiKeys: new KeyRoles(new ApiKeys(config.apiKeys), new StoredApiKeys(storage)),
    transactions,
    versions,
    imageRecrop: new ImageRecrop({ config, registry: fieldTypes, storage, transactions, versions, crops: deps.attachments, onFailure: deps.onFollowUpFailure }),
    inUse: new MediaInUse({ config, reverse }),
    conversion: new Conversion({ config, fieldTypes }),
    values,
    presenter,
    changes,
    queries: new ListQueries({ config, registry: fieldTypes }),
    indexer,
    areas: new AreaRenderer(config.widgetTypes, fieldTypes, builtInWidgetRenderers(deps.imageSizes)),
    onFollowUpFailure: deps.onFollowUpFailure,
  });
}

// Image work takes seconds: a second is too soon to come back.
const imageTurnRetryAfter = 2;

function createMediaService(
  config: AppConfig,
  storage: StorageAdapter,
  store: { files: FileStorage; workDir: string },
  images: ImageProcessor = createSharpImageProcessor(),
): MediaService {
  const { limits } = config;
  return new MediaService({
    storage,
    files: store.files,
    images,
    workDir: store.workDir,
    uploadLimit: config.uploadLimit,
    uploadBudget: new UploadBudget({ bytesPerMinute: config.limits.uploadBytesPerMinute, inFlight: config.limits.uploadsInFlight }),
    imageTurns: new BoundedPool({
      concurrency: limits.imageProcessingConcurrency,
      queueLimit: limits.imageProcessingQueue,
      retryAfterSeconds: imageTurnRetryAfter,
      refusal: { message: 'The server is processing as many images as it may; try again shortly.', data: { limit: 'imageProcessingQueue' } },
    }),
    cropsPerAttachment: config.limits.cropsPerAttachment,
    autocropImages: config.limits.autocropImages,
    mayEditVersions: createVersionEditCheck({ pieceTypes: config.pieceTypes, documents: storage.documents }),
    graceMs: config.limits.attachmentGraceSeconds * 1000,
  });
}

/** The content layer over a store, wired as the server wires it. */
export interface ContentServices {
  readonly documents: DocumentOperations;
  readonly media: MediaService;
  readonly fieldTypes: ReturnType<typeof createFieldTypeRegistry>;
  readonly passwordHasher: PasswordVerifier;
  /** Releases the file store (an S3 client); the store itself is the caller's. */
  close(): void;
}

/**
 * The document operations and the media service on `storage`, as the server uses them: the
 * command line works through the same ones, so every rule of the content layer holds for it too.
 */
export async function createContentServices(
  config: AppConfig,
  storage: StorageAdapter,
  options: {
    readonly passwordHasher?: PasswordVerifier;
    readonly links?: LinkBase;
    readonly onChangesCommitted?: () => void;
    readonly onChangesLogged?: () => void;
    readonly onFollowUpFailure?: FollowUpFailure;
    /** An image processor to use instead of sharp's (tests hold one mid-image). */
    readonly images?: ImageProcessor;
  } = {},
): Promise<ContentServices> {
  // The server's links follow its listening address once known; the command line's, the configured baseUrl.
  const links = options.links ?? new LinkBase(config.baseUrl);
  const fileStore = await createFileStorage(config, links);
  const media = createMediaService(config, storage, fileStore, options.images);
  await media.start();
  const { limits } = config;
  const passwordHasher =
    options.passwordHasher ?? new ScryptPasswordHasher({ concurrency: limits.passwordHashConcurrency, queueLimit: limits.passwordHashQueue });
  const fieldTypes = createFieldTypeRegistry();
  const documents = buildDocumentOperations({
    config,
    storage,
    fieldTypes,
    attachments: media,
    passwordHasher,
    imageSizes,
    links,
    onChangesCommitted: options.onChangesCommitted,
    onChangesLogged: options.onChangesLogged,
    onFollowUpFailure: options.onFollowUpFailure,
  });
  return { documents, media, fieldTypes, passwordHasher, close: () => fileStore.close() };
}
