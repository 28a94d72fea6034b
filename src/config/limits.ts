import { Type } from '@sinclair/typebox';
import { ConfigError } from '../errors/app-error.js';

/**
 * Every numeric limit the server enforces against its clients, in one table: its configuration
 * key (`limits.<name>` in the configuration file), its environment variable, its default and
 * its bounds. The environment wins over the file, the file over the default. To add a limit,
 * add a row; the README's security section lists every row.
 */
export const limitDefinitions = {
  jsonDepth: { env: 'CMS_LIMIT_JSON_DEPTH', default: 64, min: 1, max: 1000, unit: 'levels', about: 'nesting of a JSON body' },
  // The shape of a JSON body: generous for any real page (an editor's list of 1,000+ items), tight
  // enough that no request can make the server walk millions of values.
  arrayItems: { env: 'CMS_LIMIT_ARRAY_ITEMS', default: 10_000, min: 1, max: 1_000_000, unit: 'items', about: 'items of one array in a JSON body' },
  objectKeys: { env: 'CMS_LIMIT_OBJECT_KEYS', default: 1_000, min: 1, max: 1_000_000, unit: 'keys', about: 'keys of one object in a JSON body' },
  // Every text is sanitized, slugified or indexed on the event loop (about 1 s per MB of rich text).
  stringLength: { env: 'CMS_LIMIT_STRING_LENGTH', default: 500_000, min: 1, max: 100_000_000, unit: 'characters', about: 'one string (or key) in a JSON body: a field value, rich-text HTML' },
  bodyNodes: { env: 'CMS_LIMIT_BODY_NODES', default: 200_000, min: 1, max: 10_000_000, unit: 'values', about: 'values in one JSON body, all levels' },
  // Every widget is converted and its rich text sanitized: a page's worth, not a database's.
  areaWidgets: { env: 'CMS_LIMIT_AREA_WIDGETS', default: 1_000, min: 1, max: 100_000, unit: 'widgets', about: 'widgets in one area' },
  // A stored version as JSON: what every later write of the document reads, copies and saves again.
  // Far above any real page (a long article is 50–100 KB of HTML, stored with two plain-text
  // copies for search); indexing and saving the largest still holds the event loop a few hundred ms.
  documentBytes: { env: 'CMS_LIMIT_DOCUMENT_BYTES', default: 2 * 1024 * 1024, min: 1024, max: 1024 ** 3, unit: 'bytes', about: 'one stored document version as JSON; also the rich-text characters one write may sanitize' },
  // Big rich text (10,000 characters and more) takes up to 2.5 s per million characters to sanitize:
  // in threads, a big body's widgets side by side, and no more cores than these taken from the others.
  sanitizeThreads: { env: 'CMS_LIMIT_SANITIZE_THREADS', default: 2, min: 0, max: 64, unit: 'threads', about: 'worker threads that sanitize big rich text off the event loop (0: on it)' },
  // Connections. A stalled client is cut by whichever comes first: no byte for idleTimeout, headers
  // not complete after headersTimeout, request not complete after requestTimeout. The last one is
  // long so that a slow but moving 50 MiB upload (about 90 KB/s) still succeeds.
  idleTimeout: { env: 'CMS_LIMIT_IDLE_TIMEOUT', default: 60_000, min: 100, max: 3_600_000, unit: 'ms', about: 'a connection without a byte either way (also while the server works)' },
  headersTimeout: { env: 'CMS_LIMIT_HEADERS_TIMEOUT', default: 20_000, min: 100, max: 600_000, unit: 'ms', about: 'receiving the headers of a request' },
  requestTimeout: { env: 'CMS_LIMIT_REQUEST_TIMEOUT', default: 600_000, min: 100, max: 86_400_000, unit: 'ms', about: 'receiving a whole request, body included' },
  // Above the 60 s idle timeout of common load balancers, which would otherwise reuse a closed connection.
  keepAliveTimeout: { env: 'CMS_LIMIT_KEEP_ALIVE_TIMEOUT', default: 72_000, min: 100, max: 600_000, unit: 'ms', about: 'an idle connection between requests' },
  requestsPerConnection: { env: 'CMS_LIMIT_REQUESTS_PER_CONNECTION', default: 1_000, min: 1, max: 1_000_000, unit: 'requests', about: 'requests on one kept-alive connection' },
  // Below the common 1,024 open-file limit, leaving room for the database and uploads.
  connections: { env: 'CMS_LIMIT_CONNECTIONS', default: 900, min: 1, max: 1_000_000, unit: 'connections', about: 'open connections; more are closed at once' },
  // Headroom: one address holds at most this many, so it cannot take the others' connections. Enough
  // for an office behind one NAT address (a browser keeps up to 6 per server, some 20 people at
  // once) or a front end's connection pool. Behind a proxy every connection has the proxy's address:
  // raise it to `connections` and let the proxy limit each client.
  connectionsPerAddress: { env: 'CMS_LIMIT_CONNECTIONS_PER_ADDRESS', default: 128, min: 1, max: 1_000_000, unit: 'connections', about: 'open connections from one client address (an IPv6 /64); more are closed at once' },
  // A body trickled a byte at a time would hold its connection until requestTimeout. Apache's
  // mod_reqtimeout asks the same 500 bytes a second; any real client sends far faster.
  minBodyRate: { env: 'CMS_LIMIT_MIN_BODY_RATE', default: 500, min: 1, max: 1024 ** 3, unit: 'bytes/s', about: 'average pace of a request body once bodyRateGrace has passed; a slower one gets 408' },
  bodyRateGrace: { env: 'CMS_LIMIT_BODY_RATE_GRACE', default: 10_000, min: 100, max: 600_000, unit: 'ms', about: 'time a request body may arrive at any pace before minBodyRate applies' },
  // A refusal sent before the body is read waits this long for the rest of the body, so the client reads the answer.
  drainTimeout: { env: 'CMS_LIMIT_DRAIN_TIMEOUT', default: 10_000, min: 0, max: 600_000, unit: 'ms', about: 'reading the unread body of a refused request' },
  // Logins and passwords.
  // Password resets by mail (POST /api/v1/@cms/login/forgot, /reset) and TOTP setup tokens.
  passwordResetLifetimeSeconds: { env: 'CMS_LIMIT_PASSWORD_RESET_LIFETIME_SECONDS', default: 3_600, min: 60, max: 604_800, unit: 's', about: 'a password reset link works this long after it was mailed' },
  passwordResetsPerAccount: { env: 'CMS_LIMIT_PASSWORD_RESETS_PER_ACCOUNT', default: 3, min: 1, max: 1_000, unit: 'requests', about: 'password reset mails asked for one account (or unknown name) within passwordResetPeriodSeconds; further requests get the same answer but send nothing' },
  passwordResetsPerAddress: { env: 'CMS_LIMIT_PASSWORD_RESETS_PER_ADDRESS', default: 10, min: 1, max: 100_000, unit: 'requests', about: 'password reset requests from one client address within passwordResetPeriodSeconds; more are refused with 429' },
  passwordResetPeriodSeconds: { env: 'CMS_LIMIT_PASSWORD_RESET_PERIOD_SECONDS', default: 3_600, min: 1, max: 604_800, unit: 's', about: 'period password reset requests are counted over' },
  totpSetupLifetimeSeconds: { env: 'CMS_LIMIT_TOTP_SETUP_LIFETIME_SECONDS', default: 600, min: 60, max: 86_400, unit: 's', about: 'the setup token a user of a role that must use TOTP gets at login works this long, for setting TOTP up only' },
  passwordMinLength: { env: 'CMS_LIMIT_PASSWORD_MIN_LENGTH', default: 10, min: 1, max: 1024, unit: 'characters', about: 'shortest password a user may be given' },
  loginFailuresPerUsername: { env: 'CMS_LIMIT_LOGIN_FAILURES_PER_USERNAME', default: 3, min: 1, max: 1000, unit: 'failures', about: 'failed logins for one username within the lockout period before it is locked' },
  loginFailuresPerAddress: { env: 'CMS_LIMIT_LOGIN_FAILURES_PER_ADDRESS', default: 30, min: 1, max: 100000, unit: 'failures', about: 'failed logins from one client address within the lockout period before it is locked' },
  loginLockoutSeconds: { env: 'CMS_LIMIT_LOGIN_LOCKOUT_SECONDS', default: 60, min: 1, max: 86400, unit: 's', about: 'period failed logins are counted over, and length of a lockout' },
  passwordHashConcurrency: { env: 'CMS_LIMIT_PASSWORD_HASH_CONCURRENCY', default: 2, min: 1, max: 64, unit: 'hashes', about: 'password hashes computed at once (each takes a libuv thread and 128 MiB)' },
  passwordHashQueue: { env: 'CMS_LIMIT_PASSWORD_HASH_QUEUE', default: 32, min: 0, max: 10000, unit: 'hashes', about: 'password hashes waiting for their turn before logins are refused with 503' },
  // PATCH bodies.
  patchOperations: { env: 'CMS_LIMIT_PATCH_OPERATIONS', default: 1000, min: 1, max: 100000, unit: 'operations', about: 'keys and operator paths in one PATCH body, `_patches` included' },
  // Editors' advisory locks (the original's `advisoryLockTimeout`): the admin refreshes its lock every few seconds.
  advisoryLockTimeout: { env: 'CMS_LIMIT_ADVISORY_LOCK_TIMEOUT', default: 15, min: 1, max: 86_400, unit: 's', about: 'an advisory lock not refreshed this long is free for another tab to take' },
  // Writes sent with an `Idempotency-Key` (content/documents/idempotency.ts): a retry within the
  // lifetime gets the first answer. A day, as Stripe keeps its keys; a retry after a lost answer
  // comes within seconds or minutes.
  idempotencyKeyTtl: { env: 'CMS_LIMIT_IDEMPOTENCY_KEY_TTL', default: 86_400, min: 1, max: 2_592_000, unit: 's', about: 'how long a write sent with an `Idempotency-Key` is remembered: a retry with the same key within it gets the first answer' },
  idempotencyKeyLength: { env: 'CMS_LIMIT_IDEMPOTENCY_KEY_LENGTH', default: 255, min: 1, max: 1_024, unit: 'characters', about: 'longest `Idempotency-Key` header (visible ASCII characters); a longer one is refused with 400' },
  // Document history (issues 25, 33): each document keeps, per locale, its first entry and, per role
  // of their authors, at most so many changes and so many publishes, none older than so many days
  // (a piece type's `history` option sets its own); a save prunes only its own role's share, so
  // no writer pushes out another role's entries. Saves of one version by one user within the
  // merge window (autosaves) make one entry.
  historyMaxEntries: { env: 'CMS_LIMIT_HISTORY_MAX_ENTRIES', default: 100, min: 0, max: 100_000, unit: 'entries', about: 'history entries of changes other than publishes kept per document, locale and role of their authors, unless its type sets `history.maxEntries` (0: no history)' },
  historyMaxPublishEntries: { env: 'CMS_LIMIT_HISTORY_MAX_PUBLISH_ENTRIES', default: 50, min: 1, max: 100_000, unit: 'entries', about: 'history entries of publishes kept per document, locale and role of their authors, unless its type sets `history.maxPublishEntries`' },
  historyMaxAgeDays: { env: 'CMS_LIMIT_HISTORY_MAX_AGE_DAYS', default: 365, min: 1, max: 36_500, unit: 'days', about: 'history entries older than this are removed at the document\'s next change, unless its type sets `history.maxAgeDays`' },
  historyMergeSeconds: { env: 'CMS_LIMIT_HISTORY_MERGE_SECONDS', default: 60, min: 0, max: 86_400, unit: 's', about: 'saves of one draft by one user within this long of the entry\'s first save update that entry instead of adding one (0: every save adds one)' },
  // Preview links (`POST :_id/share` with `expiresIn`): a link without a lifetime uses the default;
  // 0 keeps the original's key, held by the draft until it is unshared (never expires).
  shareLinkLifetime: { env: 'CMS_LIMIT_SHARE_LINK_LIFETIME', default: 0, min: 0, max: 315_360_000, unit: 's', about: 'lifetime of a preview link made without `expiresIn` (0: the original\'s key, which never expires)' },
  shareLinkMaxLifetime: { env: 'CMS_LIMIT_SHARE_LINK_MAX_LIFETIME', default: 2_592_000, min: 1, max: 315_360_000, unit: 's', about: 'longest `expiresIn` of a preview link (and ceiling of shareLinkLifetime)' },
  // Review of drafts (`options.review`, docs/guides/review.md): comments and approve links.
  reviewCommentLength: { env: 'CMS_LIMIT_REVIEW_COMMENT_LENGTH', default: 10_000, min: 1, max: 1_000_000, unit: 'characters', about: 'longest review comment body' },
  reviewCommentsPerDraft: { env: 'CMS_LIMIT_REVIEW_COMMENTS_PER_DRAFT', default: 500, min: 1, max: 100_000, unit: 'comments', about: 'most review comments one draft holds' },
  reviewReviewers: { env: 'CMS_LIMIT_REVIEW_REVIEWERS', default: 20, min: 1, max: 1000, unit: 'users', about: 'most reviewers assigned to one draft' },
  reviewLinkLifetime: { env: 'CMS_LIMIT_REVIEW_LINK_LIFETIME', default: 604_800, min: 1, max: 315_360_000, unit: 's', about: 'lifetime of an approve link made without `expiresIn` (at most shareLinkMaxLifetime)' },
  // Live preview (`POST :_id/preview-url`): each preview URL carries a link of its own, short-lived
  // since the admin asks for a fresh one whenever it opens the preview.
  livePreviewLinkLifetime: { env: 'CMS_LIMIT_LIVE_PREVIEW_LINK_LIFETIME', default: 3_600, min: 1, max: 315_360_000, unit: 's', about: 'lifetime of the preview link a live preview URL carries (`POST …/preview-url` without `expiresIn`)' },
  // Releases (`/api/v1/@cms/release`): drafts published together in one transaction.
  releaseMaxDocuments: { env: 'CMS_LIMIT_RELEASE_MAX_DOCUMENTS', default: 10_000, min: 1, max: 100_000, unit: 'documents', about: 'drafts one release may hold' },
  releaseDocumentsPerCall: { env: 'CMS_LIMIT_RELEASE_DOCUMENTS_PER_CALL', default: 1_000, min: 1, max: 100_000, unit: 'ids', about: 'ids one `POST …/release/:id/documents` may add and remove together' },
  shareLinksPerDraft: { env: 'CMS_LIMIT_SHARE_LINKS_PER_DRAFT', default: 50, min: 1, max: 10_000, unit: 'links', about: 'live preview links one draft may have at once' },
  // Uploads: a caller (one API key or one user) gets a byte budget per minute and a few uploads
  // at a time; four full-size (50 MB) files a minute, more than any editor sends by hand.
  uploadBytesPerMinute: { env: 'CMS_LIMIT_UPLOAD_BYTES_PER_MINUTE', default: 200 * 1024 * 1024, min: 1024, max: 1024 ** 4, unit: 'bytes', about: 'bytes one caller may upload per minute' },
  uploadsInFlight: { env: 'CMS_LIMIT_UPLOADS_IN_FLIGHT', default: 3, min: 1, max: 100, unit: 'uploads', about: 'uploads one caller may run at once (crops included)' },
  // Images are processed one operation at a time each (an upload's sizes, its original cleaned, a
  // crop's files), and each holds one of libuv's threads, which file reads and password hashes use
  // too (4 unless UV_THREADPOOL_SIZE says otherwise): with passwordHashConcurrency, keep it below that.
  imageProcessingConcurrency: { env: 'CMS_LIMIT_IMAGE_PROCESSING_CONCURRENCY', default: 1, min: 1, max: 64, unit: 'images', about: 'images processed at once, all callers together (an upload\'s sizes and cleaned original, a crop\'s files); each holds a libuv thread' },
  imageProcessingQueue: { env: 'CMS_LIMIT_IMAGE_PROCESSING_QUEUE', default: 8, min: 0, max: 10_000, unit: 'images', about: 'images waiting for their turn before more uploads and crops of images are refused with 503' },
  // Crops: each writes the cropped image and its six sizes, kept as long as the attachment; an
  // image shown in a few places needs a few. Crops also count against the caller's upload budget.
  cropsPerAttachment: { env: 'CMS_LIMIT_CROPS_PER_ATTACHMENT', default: 10, min: 0, max: 1_000, unit: 'crops', about: 'crops one attachment may have' },
  // Autocrop: each image may need a new crop (seven files rendered); a relationship holds a few.
  autocropImages: { env: 'CMS_LIMIT_AUTOCROP_IMAGES', default: 20, min: 1, max: 100, unit: 'images', about: 'images one autocrop request may name' },
  // Replacing an image's file re-crops the relationships of every document that shows it, in one
  // transaction after the image's: a write per version of those documents, a crop per distinct box.
  imageRecropDocuments: { env: 'CMS_LIMIT_IMAGE_RECROP_DOCUMENTS', default: 200, min: 0, max: 100_000, unit: 'documents', about: 'documents relating to an image whose crops one replacement of its file brings up to date; more: the replacement is refused' },
  // Deleting or archiving a media piece that published documents show is refused (409) naming them:
  // that many at most, read in one query per type that can show it; the others are counted.
  inUseListed: { env: 'CMS_LIMIT_IN_USE_LISTED', default: 20, min: 1, max: 1_000, unit: 'documents', about: 'published documents a refusal to delete or archive a media piece in use names (the rest are counted)' },
  // GET answers of the piece routes, kept as bytes for anonymous callers and API keys until a write
  // commits; 0 entries turns the cache off.
  // Searches and sorts on a stored property read every document they select: at 100,000 that is
  // hundreds of milliseconds, which must not hold the event loop (and so every other answer).
  readThreads: { env: 'CMS_LIMIT_READ_THREADS', default: 2, min: 0, max: 64, unit: 'threads', about: 'SQLite: worker threads that run searches and sorts on stored properties off the event loop (0: on it)' },
  responseCacheEntries: { env: 'CMS_LIMIT_RESPONSE_CACHE_ENTRIES', default: 2_000, min: 0, max: 1_000_000, unit: 'answers', about: 'GET answers kept in memory for anonymous callers and API keys (0: no cache)' },
  responseCacheBytes: { env: 'CMS_LIMIT_RESPONSE_CACHE_BYTES', default: 64 * 1024 * 1024, min: 0, max: 16 * 1024 ** 3, unit: 'bytes', about: 'bytes of the GET answers kept in memory, compressed copies included' },
  // An answer is keyed by its raw URL, parameters ordered; past this many, it is not kept (qs reads 500 at most).
  responseCacheParams: { env: 'CMS_LIMIT_RESPONSE_CACHE_PARAMS', default: 100, min: 0, max: 400, unit: 'parameters', about: 'query string parameters of a GET whose answer is kept at most (more: the answer is built each time)' },
  // Surrogate-Key / Cache-Tag of shared answers: document tags go first past this, then all (CDN headers stop at 16 KB).
  cdnTagsLength: { env: 'CMS_LIMIT_CDN_TAGS_LENGTH', default: 4000, min: 0, max: 16_000, unit: 'characters', about: 'length of the Surrogate-Key and Cache-Tag headers of anonymous answers at most (longer: type-level tags only, then none; 0: never sent)' },
  // The store going away (a PostgreSQL restart, a network cut, another process holding SQLite's
  // write lock): a request waits this long for it, then is refused with 503 and Retry-After.
  postgresConnectTimeout: { env: 'CMS_LIMIT_POSTGRES_CONNECT_TIMEOUT', default: 5_000, min: 100, max: 600_000, unit: 'ms', about: 'PostgreSQL: a statement waits this long for a connection, new or from the pool, then the request is refused with 503' },
  // A statement whose answer does not come: the connection may be half dead (a primary killed
  // on a host that sends no reset, a network cut), which no error tells. Past this the
  // connection is closed and the request refused with 503, before the client gives up.
  postgresStatementTimeout: { env: 'CMS_LIMIT_POSTGRES_STATEMENT_TIMEOUT', default: 30_000, min: 100, max: 3_600_000, unit: 'ms', about: 'PostgreSQL: a statement whose answer has not come within this long closes its connection, and the request is refused with 503' },
  // Read replicas (CMS_DATABASE_READ_URL): how fresh what the server knows of their replay is,
  // and how far behind one may be and still serve the reads of callers with no position to see.
  readReplicaPoll: { env: 'CMS_LIMIT_READ_REPLICA_POLL', default: 200, min: 10, max: 60_000, unit: 'ms', about: 'PostgreSQL read replicas: how often each replica\'s replay position (and the primary\'s) is read; a caller\'s reads after its write go to the primary until then' },
  readReplicaMaxLag: { env: 'CMS_LIMIT_READ_REPLICA_MAX_LAG', default: 5_000, min: 0, max: 3_600_000, unit: 'ms', about: 'PostgreSQL read replicas: one further behind the primary than this (or down) serves no reads until it catches up' },
  sqliteBusyTimeout: { env: 'CMS_LIMIT_SQLITE_BUSY_TIMEOUT', default: 5_000, min: 1, max: 600_000, unit: 'ms', about: 'SQLite: a write waits this long for the write lock another process holds (CMS_WORKERS, the CLI), then the request is refused with 503' },
  // SQLite writes: the writes that queue up while one commit runs are committed together (each
  // still all-or-nothing), since a commit's cost hardly depends on how much it holds.
  writesPerCommit: { env: 'CMS_LIMIT_WRITES_PER_COMMIT', default: 32, min: 1, max: 10_000, unit: 'writes', about: 'SQLite writes committed together at most (1: each write commits alone)' },
  // A checkpoint copies every page written since the last one from the log into the file, in the
  // commit that fills the log: a page rewritten by many writes (index roots, counts, the documents
  // that relate to many others) is copied once per checkpoint. SQLite's default, 1,000 pages, made
  // checkpoints about a tenth of the CPU time of a POST (bench/NOTES.md, "Write path").
  walCheckpointPages: { env: 'CMS_LIMIT_WAL_CHECKPOINT_PAGES', default: 10_000, min: 100, max: 1_000_000, unit: 'pages', about: 'SQLite: the write-ahead log is copied into the database file once it holds this many 4 KiB pages (its file keeps that size)' },
  // The query planner's statistics (sqlite_stat1): without them, or with those of a store a
  // small part of its size, list queries may pick an index that reads the whole type. `PRAGMA
  // optimize` analyzes only what is due, from a bounded sample (storage/sqlite/statistics-upkeep.ts).
  statisticsRows: { env: 'CMS_LIMIT_STATISTICS_ROWS', default: 10_000, min: 1, max: 1_000_000_000, unit: 'rows', about: 'SQLite: rows written (index rows included) after which the planner statistics are refreshed where due (PRAGMA optimize)' },
  statisticsInterval: { env: 'CMS_LIMIT_STATISTICS_INTERVAL', default: 3_600_000, min: 1_000, max: 604_800_000, unit: 'ms', about: 'SQLite: the planner statistics are refreshed where due this often anyway, and as the server stops' },
  // Attachments no document version holds (any mode, locale, archived or not) are removed with their
  // files after this long, a day as in the original; the sweep that does it also moves files that
  // a crash left readable or not against their record, and removes files no record names.
  attachmentGraceSeconds: { env: 'CMS_LIMIT_ATTACHMENT_GRACE_SECONDS', default: 86_400, min: 1, max: 315_360_000, unit: 's', about: 'an attachment no document uses is kept this long (from its upload, or from when the last version let it go), then removed with its files' },
  attachmentSweepSeconds: { env: 'CMS_LIMIT_ATTACHMENT_SWEEP_SECONDS', default: 3_600, min: 1, max: 86_400, unit: 's', about: 'time between two sweeps of the attachments (one runs at start)' },
  // `cms import` reads an archive as hostile input: a record is parsed whole, a file is streamed.
  // Writes keep document versions within the same bound, so that every export imports.
  archiveRecordBytes: { env: 'CMS_LIMIT_ARCHIVE_RECORD_BYTES', default: 64 * 1024 * 1024, min: 1024, max: 1024 ** 3, unit: 'bytes', about: 'one document version as stored (a larger write is refused) and one record (a document version, a user, an attachment) of an archive `cms import` reads' },
  archiveFileBytes: { env: 'CMS_LIMIT_ARCHIVE_FILE_BYTES', default: 16 * 1024 ** 3, min: 1024, max: 1024 ** 4, unit: 'bytes', about: '`cms import`: one attachment file of an archive' },
  // Webhooks: each attempt gets webhookTimeout; a failed one is tried again after webhookRetryDelay,
  // doubled at each failure (with jitter) up to webhookRetryMaxDelay, until webhookAttempts attempts
  // or webhookMaxAgeSeconds after the change, then marked failed. With the defaults: about 3 hours of tries.
  webhookTimeout: { env: 'CMS_LIMIT_WEBHOOK_TIMEOUT', default: 10_000, min: 100, max: 120_000, unit: 'ms', about: 'one webhook delivery attempt, from connecting to the status line' },
  webhookAttempts: { env: 'CMS_LIMIT_WEBHOOK_ATTEMPTS', default: 12, min: 1, max: 100, unit: 'attempts', about: 'attempts to deliver one event to one endpoint before it is marked failed' },
  webhookRetryDelay: { env: 'CMS_LIMIT_WEBHOOK_RETRY_DELAY', default: 10_000, min: 10, max: 3_600_000, unit: 'ms', about: 'pause after the first failed attempt; doubled after each further one' },
  webhookRetryMaxDelay: { env: 'CMS_LIMIT_WEBHOOK_RETRY_MAX_DELAY', default: 3_600_000, min: 10, max: 86_400_000, unit: 'ms', about: 'longest pause between two attempts' },
  webhookMaxAgeSeconds: { env: 'CMS_LIMIT_WEBHOOK_MAX_AGE_SECONDS', default: 259_200, min: 1, max: 31_536_000, unit: 's', about: 'an event not delivered this long after the change is marked failed' },
  webhookPollInterval: { env: 'CMS_LIMIT_WEBHOOK_POLL_INTERVAL', default: 2_000, min: 10, max: 600_000, unit: 'ms', about: 'how often a server looks for events other processes wrote (its own are sent at once)' },
  webhookConcurrency: { env: 'CMS_LIMIT_WEBHOOK_CONCURRENCY', default: 8, min: 1, max: 1_000, unit: 'requests', about: 'webhook deliveries one server process sends at once' },
  // cache.purge: the events a round finds are sent together, their tags in requests of at most the
  // endpoint's maxPurgeTags; a process sends them at most once per webhookPurgeInterval, gathering the rest.
  webhookPurgeBatch: { env: 'CMS_LIMIT_WEBHOOK_PURGE_BATCH', default: 1_000, min: 1, max: 100_000, unit: 'events', about: 'cache.purge events one server process gathers into one round of purge requests' },
  webhookPurgeInterval: { env: 'CMS_LIMIT_WEBHOOK_PURGE_INTERVAL', default: 1_000, min: 0, max: 600_000, unit: 'ms', about: 'shortest pause between two rounds of purge requests from one server process (the first is sent at once)' },
  webhookKeepSeconds: { env: 'CMS_LIMIT_WEBHOOK_KEEP_SECONDS', default: 604_800, min: 1, max: 315_360_000, unit: 's', about: 'delivered and failed deliveries are listed this long after their last attempt, then removed' },
  // Scheduled publishing (docs/reference/rest-api.md, "Scheduled publishing"): every process looks
  // for due schedules every schedulerInterval; a claimed run that neither ends nor fails within
  // scheduleLease (its process stopped) is claimed again, up to scheduleAttempts claims.
  schedulerInterval: { env: 'CMS_LIMIT_SCHEDULER_INTERVAL', default: 5_000, min: 10, max: 3_600_000, unit: 'ms', about: 'how often a server looks for due scheduled publishes and unpublishes (one look runs at start)' },
  scheduleTolerance: { env: 'CMS_LIMIT_SCHEDULE_TOLERANCE', default: 60_000, min: 0, max: 86_400_000, unit: 'ms', about: 'how far in the past a schedule time may lie (clock skew, a slow form): an earlier one is refused' },
  scheduleLease: { env: 'CMS_LIMIT_SCHEDULE_LEASE', default: 300_000, min: 100, max: 86_400_000, unit: 'ms', about: 'a process holds a due schedule it claimed this long; one that has not run by then is claimed again' },
  scheduleAttempts: { env: 'CMS_LIMIT_SCHEDULE_ATTEMPTS', default: 5, min: 1, max: 100, unit: 'attempts', about: 'claims of one schedule whose run neither ended nor was refused (a stopped process, a store failing) before it is marked failed' },
  // The audit trail (GET /api/v1/@cms/audit): pruned on a timer, oldest first, by age and by count.
  auditKeepDays: { env: 'CMS_LIMIT_AUDIT_KEEP_DAYS', default: 365, min: 0, max: 36_500, unit: 'days', about: 'audit records older than this are removed (0: kept however old)' },
  auditKeepRecords: { env: 'CMS_LIMIT_AUDIT_KEEP_RECORDS', default: 0, min: 0, max: 1_000_000_000, unit: 'records', about: 'only the newest this many audit records are kept (0: however many)' },
  auditPruneSeconds: { env: 'CMS_LIMIT_AUDIT_PRUNE_SECONDS', default: 3_600, min: 1, max: 86_400, unit: 's', about: 'how often a server removes the audit records the two limits above let go' },
  // The change stream (GET /api/v1/@cms/events) and the change log it reads.
  changeLogKeepHours: { env: 'CMS_LIMIT_CHANGE_LOG_KEEP_HOURS', default: 24, min: 1, max: 8_760, unit: 'hours', about: 'a committed change stays in the change log this long: an event stream that reconnects with an older Last-Event-ID is told to resynchronise' },
  changeLogPoll: { env: 'CMS_LIMIT_CHANGE_LOG_POLL', default: 250, min: 20, max: 10_000, unit: 'ms', about: 'how often a process with open event streams reads the change log for what other processes committed (its own commits are sent at once)' },
  // The sync API (GET /api/v1/<type>/sync, /api/v1/@cms/sync): a page's documents and tombstones.
  syncPageMax: { env: 'CMS_LIMIT_SYNC_PAGE_MAX', default: 1_000, min: 1, max: 10_000, unit: 'entries', about: 'the largest `limit` a sync page takes (documents and tombstones together; 100 when not given); a larger one is refused with 400' },
  eventStreamsPerCaller: { env: 'CMS_LIMIT_EVENT_STREAMS_PER_CALLER', default: 8, min: 1, max: 1_000, unit: 'streams', about: 'open event streams of one user or API key (the tabs of one browser); more are refused with 429' },
  eventStreamsPerAddress: { env: 'CMS_LIMIT_EVENT_STREAMS_PER_ADDRESS', default: 32, min: 1, max: 100_000, unit: 'streams', about: 'open event streams from one client address (an IPv6 /64), anonymous ones included; more are refused with 429' },
  eventStreamHeartbeat: { env: 'CMS_LIMIT_EVENT_STREAM_HEARTBEAT', default: 15_000, min: 1_000, max: 300_000, unit: 'ms', about: 'a comment line sent on an idle event stream, so that proxies keep it open and a dead client is noticed' },
  presenceTtl: { env: 'CMS_LIMIT_PRESENCE_TTL', default: 20_000, min: 2_000, max: 600_000, unit: 'ms', about: "an editor's presence on a document lapses this long after its tab last announced it (the admin renews it a third of the way): a tab that closed without leaving is gone from other editors' screens by then" },
  presencePerCaller: { env: 'CMS_LIMIT_PRESENCE_PER_CALLER', default: 16, min: 1, max: 1_000, unit: 'tabs', about: "a user's tabs with a presence on a document at once; a further tab's announce is refused with 429" },
  presenceEntries: { env: 'CMS_LIMIT_PRESENCE_ENTRIES', default: 10_000, min: 1, max: 1_000_000, unit: 'tabs', about: 'presences of all users together; a further tab is refused with 429 (each process reads them all, so this bounds that read)' },
  presencePoll: { env: 'CMS_LIMIT_PRESENCE_POLL', default: 1_000, min: 100, max: 60_000, unit: 'ms', about: 'how often a process with open event streams that follow presence reads who is where (an announce it answers itself is sent at once)' },
  // Each user's admin preferences (GET/PATCH /api/v1/@cms/preferences): read on every admin load.
  preferencesBytes: { env: 'CMS_LIMIT_PREFERENCES_BYTES', default: 16_384, min: 1_024, max: 1_048_576, unit: 'bytes', about: "one user's admin preferences as JSON; a save that would store more is refused with 413" },
  preferencesListTypes: { env: 'CMS_LIMIT_PREFERENCES_LIST_TYPES', default: 100, min: 1, max: 10_000, unit: 'types', about: "piece types with list preferences (columns, sort, perPage) in one user's preferences; more are refused with 400" },
  preferencesListColumns: { env: 'CMS_LIMIT_PREFERENCES_LIST_COLUMNS', default: 50, min: 1, max: 1_000, unit: 'columns', about: "columns one user's list of one type names; more are refused with 400" },
  preferencesNameLength: { env: 'CMS_LIMIT_PREFERENCES_NAME_LENGTH', default: 200, min: 1, max: 10_000, unit: 'characters', about: "one column or sort name in a user's list preferences; longer is refused with 400" },
  // The home screen's dashboard (GET /api/v1/@cms/dashboard): one list read per section and piece type, each this long.
  dashboardItems: { env: 'CMS_LIMIT_DASHBOARD_ITEMS', default: 10, min: 1, max: 100, unit: 'documents', about: 'documents in each section of the dashboard (my drafts, recently changed, scheduled); the dashboard reads this many per section and piece type, so its cost grows with the number of types' },
  eventStreamLifetime: { env: 'CMS_LIMIT_EVENT_STREAM_LIFETIME', default: 3_600_000, min: 1_000, max: 86_400_000, unit: 'ms', about: 'an event stream is ended after this long; the client reconnects with Last-Event-ID and its rights are checked again' },
} as const satisfies Record<string, LimitDefinition>;

export interface LimitDefinition {
  readonly env: string;
  readonly default: number;
  readonly min: number;
  readonly max: number;
  /** What the number counts: bytes, ms, items... */
  readonly unit: string;
  /** What it limits, in a few words. */
  readonly about: string;
}

export type LimitName = keyof typeof limitDefinitions;
export type Limits = { readonly [name in LimitName]: number };

/** The `limits` object of the configuration file: every key optional, each an integer in its bounds. */
export const limitsSchema = Type.Object(
  Object.fromEntries(
    Object.entries(limitDefinitions).map(([name, def]) => [
      name,
      Type.Optional(
        Type.Integer({ minimum: def.min, maximum: def.max, errorMessage: `must be an integer from ${def.min} to ${def.max} (${def.unit})` }),
      ),
    ]),
  ),
  { additionalProperties: false },
);

/** Environment over file over default; an environment value out of bounds stops the start naming the variable. */
export function resolveLimits(
  fromFile: Readonly<Record<string, number | undefined>> | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Limits {
  const limits: Record<string, number> = {};
  for (const [name, def] of Object.entries(limitDefinitions) as [LimitName, LimitDefinition][]) {
    const raw = env[def.env]?.trim();
    if (raw) {
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || value < def.min || value > def.max) {
        throw new ConfigError(def.env, `must be an integer from ${def.min} to ${def.max} (${def.unit}), not "${raw}"`);
      }
      limits[name] = value;
    } else {
      limits[name] = fromFile?.[name] ?? def.default;
    }
  }
  return limits as Limits;
}
