import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import type { AppConfig } from './content/app-config.js';
import type { Limits } from './config/limits.js';
import type { StorageAdapter } from './storage/storage-adapter.js';
import { createStorage } from './storage/create-storage.js';
import type { DocumentOperations } from './content/documents/document-operations.js';
import { createContentServices } from './content-services.js';
import { loggedProgress, reindexStaleTypes } from './content/indexing/reindex.js';
import { ApiKeys } from './auth/api-keys.js';
import { StoredApiKeys } from './auth/stored-api-keys.js';
import { TokenService, type PasswordVerifier } from './auth/token-service.js';
import { LoginThrottle } from './auth/login-throttle.js';
import { AccountSecurity } from './auth/account-security.js';
import { PasswordReset } from './auth/password-reset.js';
import { smtpMailer } from './auth/mailer.js';
import { registerErrorHandling, sendFrameworkError } from './http/plugins/error-handler.js';
import { registerJsonBody } from './http/plugins/json-body.js';
import { registerAuth } from './http/plugins/auth.js';
import { registerNosniff } from './http/plugins/nosniff.js';
import { registerReadPosition } from './http/plugins/read-position.js';
import { registerCors } from './http/plugins/cors.js';
import { PublicKeyGuard } from './http/public-keys.js';
import { registerBodyDrain } from './http/plugins/drain-body.js';
import { answerClientError } from './http/client-errors.js';
import { capConnectionsPerAddress } from './http/connections-per-address.js';
import { requireBodyRate } from './http/body-rate.js';
import { redactUrl } from './http/redact-url.js';
import { registerPieceRoutes } from './http/routes/pieces.js';
import { registerSyncRoutes } from './http/routes/sync.js';
import { registerLivePreviewScriptRoute } from './http/routes/live-preview-script.js';
import { previewFrameSources } from './content/types/preview-option.js';
import { CachedAnswers } from './http/cached-answers.js';
import { lazyQueryString } from './http/query-string.js';
import { ResponseCache } from './http/response-cache.js';
import { registerAuthRoutes } from './http/routes/auth.js';
import { registerAccountRoutes } from './http/routes/account.js';
import { registerSetupRoutes } from './http/routes/setup.js';
import { FirstRunSetup, type UserDirectory } from './auth/first-run-setup.js';
import { userTypeName } from './core/principal.js';
import { registerHealthRoute } from './http/routes/health.js';
import { registerMediaRoutes } from './http/routes/media.js';
import { registerSchemaRoute } from './http/routes/schema.js';
import { registerAdminRoutes } from './http/routes/admin.js';
import { registerOpenApiRoutes } from './http/routes/openapi.js';
import { OpenApiAnswers } from './http/openapi/openapi-answers.js';
import { SchemaDescriber } from './content/schema/describe-schema.js';
import { scheduleSweeps } from './media/attachment-reclaim.js';
import type { ImageProcessor } from './media/image-processor.js';
import { LinkBase } from './config/link-base.js';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.js';
import { WebhookAdmin } from './content/webhooks/webhook-admin.js';
import { registerWebhookRoutes } from './http/routes/webhooks.js';
import { registerAuditRoutes } from './http/routes/audit.js';
import { registerEventRoutes } from './http/routes/events.js';
import { registerPresenceRoutes } from './http/routes/presence.js';
import { PresenceBoard } from './content/presence/presence-board.js';
import { registerPreferencesRoutes } from './http/routes/preferences.js';
import { registerReleaseRoutes } from './http/routes/releases.js';
import { registerDashboardRoutes } from './http/routes/dashboard.js';
import { registerReviewRoutes } from './http/routes/review.js';
import { UserPreferences } from './content/preferences/user-preferences.js';
import { ChangeFeed, pruneChangeLog } from './content/changes/change-feed.js';
import { pruneAudit } from './content/audit/audit-retention.js';
import { AuditReader } from './content/audit/audit-reader.js';
import { attachmentsGenerationKey } from './content/generation-keys.js';
import { registerMcpRoutes } from './http/routes/mcp.js';
import { mapError } from './http/error-mapper.js';
import { CallAudit } from './content/audit/call-audit.js';
import { answerMcpRequest } from './mcp/transports.js';
import type { McpDeps } from './mcp/mcp-context.js';

/** Request log lines without API keys or tokens: they may travel in the query string. */
function redactedRequest(request: { method: string; url: string; ip?: string }) {
  return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip };
}

export interface AppOptions {
  /** An adapter to use instead of the one `config.databaseUrl` names (tests share one). */
  readonly storage?: StorageAdapter;
  /** A password hasher to use instead of scrypt on its bounded pool (tests count its calls). */
  readonly passwordHasher?: PasswordVerifier;
  /** Where log lines go instead of stdout (tests read them), at `config.logLevel`. */
  readonly logStream?: { write(line: string): void };
  /** The admin's build to serve at `/admin` instead of `dist/admin` (tests use a fake one). */
  readonly adminDir?: string;
  /** An image processor to use instead of sharp's (tests hold one mid-image, to fill the turns of image processing). */
  readonly images?: ImageProcessor;
  /**
   * Set in a worker of several (`CMS_WORKERS`): its primary migrated the store, brought the index
   * up to the configuration and made (and logs) the first-run setup code, kept in the store.
   */
  readonly preparedByPrimary?: boolean;
}

/** `npm run build` writes the admin beside the compiled server: `dist/admin` next to `dist/src`. */
const builtAdminDir = fileURLToPath(new URL('../admin', import.meta.url));

function loggerOptions(config: AppConfig, stream: AppOptions['logStream']) {
  if (config.logLevel === 'silent') return false;
  return { level: config.logLevel, serializers: { req: redactedRequest }, ...(stream ? { stream } : {}) };
}

/** Fastify takes an address list as a mutable array or a comma-separated string. */
function trustProxyOption(value: AppConfig['trustProxy']): FastifyServerOptions['trustProxy'] {
  return typeof value === 'object' ? value.join(',') : value;
}

/**
 * Connection timeouts (`limits.ts`). Node checks the headers and request timeouts on a timer
 * (30 s by default), so the timer runs at a fraction of the shorter one to enforce them on time.
 */
function serverOptions(limits: Limits) {
  // Node refuses a headers timeout longer than the request timeout.
  const headersTimeout = Math.min(limits.headersTimeout, limits.requestTimeout);
  return {
    connectionTimeout: limits.idleTimeout,
    requestTimeout: limits.requestTimeout,
    keepAliveTimeout: limits.keepAliveTimeout,
    maxRequestsPerSocket: limits.requestsPerConnection,
    http: {
      headersTimeout,
      requestTimeout: limits.requestTimeout,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
  };
}

/** The users the first-run setup creates, through the content layer's insert operation (auth does not import content). */
function userDirectory(documents: DocumentOperations): UserDirectory {
  return { create: async (by, fields, options) => (await documents.insert(by, userTypeName, fields, options)).document };
}

/**
 * The composition root: the only place that picks concrete implementations. Opens and
 * migrates the store, wires the services and the HTTP layer; `main.ts` only listens.
 */
export async function buildApp(config: AppConfig, options: AppOptions = {}): Promise<FastifyInstance> {
  const storage =
    options.storage ??
    (await createStorage(config.databaseUrl, {
      poolSize: config.databasePoolSize,
      readThreads: config.limits.readThreads,
      writesPerCommit: config.limits.writesPerCommit,
      walCheckpointPages: config.limits.walCheckpointPages,
      connectTimeout: config.limits.postgresConnectTimeout,
      statementTimeout: config.limits.postgresStatementTimeout,
      readReplicas: { urls: config.databaseReadUrls, pollMs: config.limits.readReplicaPoll, maxLagMs: config.limits.readReplicaMaxLag },
      busyTimeout: config.limits.sqliteBusyTimeout,
      statistics: { afterRows: config.limits.statisticsRows, everyMs: config.limits.statisticsInterval },
      attachmentsGenerationKey,
    }));
  // Workers of one primary never race on migrations: it ran them before forking them.
  if (!options.preparedByPrimary) await storage.migrate();
  const links = new LinkBase(config.baseUrl);
  // Made once the logger is; events committed before (the first-run setup's) go out in its first round.
  let dispatcher: WebhookDispatcher | undefined;
  const wakeDispatcher = () => dispatcher?.wake();
  // The change stream's reader of the change log; woken by this process's commits, polling for the others'.
  const feed = new ChangeFeed(storage.changes, {
    pollMs: config.limits.changeLogPoll,
    onError: (error) => log?.error({ err: error }, 'reading the change log failed; the next read tries again'),
  });
  const presence = new PresenceBoard(
    config,
    storage,
    { ttlMs: config.limits.presenceTtl, perCaller: config.limits.presencePerCaller, entries: config.limits.presenceEntries, pollMs: config.limits.presencePoll },
    (error) => log?.error({ err: error }, 'reading who is on which document failed; the next read tries again'),
  );
  // Work that follows a committed write (an image's relationships re-cropped) is logged when it fails.
  let log: FastifyBaseLogger | undefined;
  const onFollowUpFailure = (error: unknown, what: string) => log?.error({ err: error }, what);
  const content = await createContentServices(config, storage, {
    passwordHasher: options.passwordHasher,
    images: options.images,
    links,
    onChangesCommitted: wakeDispatcher,
    onChangesLogged: () => feed.wake(),
    onFollowUpFailure,
  });
  const { documents, media, fieldTypes, passwordHasher } = content;
  const { limits } = config;
  const throttle = new LoginThrottle(storage.loginThrottle, {
    perUsername: limits.loginFailuresPerUsername,
    perAddress: limits.loginFailuresPerAddress,
    periodSeconds: limits.loginLockoutSeconds,
  });
  const accountSecurity = new AccountSecurity({ storage, passwords: passwordHasher, throttle, totp: config.totp, setupLifetimeSeconds: limits.totpSetupLifetimeSeconds });
  const tokens = new TokenService({ storage, passwords: passwordHasher, throttle, whoamiFields: config.whoamiFields, accountSecurity });
  const mailer = config.mail ? smtpMailer(config.mail) : null;
  const passwordReset = new PasswordReset({
    storage,
    throttle: storage.loginThrottle,
    mailer,
    limits: {
      lifetimeSeconds: limits.passwordResetLifetimeSeconds,
      perAccount: limits.passwordResetsPerAccount,
      perAddress: limits.passwordResetsPerAddress,
      periodSeconds: limits.passwordResetPeriodSeconds,
      passwordMinLength: limits.passwordMinLength,
    },
    resetLink: (token) => `${links.url}/admin/reset?token=${encodeURIComponent(token)}`,
    setPassword: async (by, userId, password) => {
      await documents.patch({ principal: by.principal, origin: by.origin }, userTypeName, userId, { password });
    },
    onMailFailure: (error) => log?.error({ err: error }, 'sending a password reset mail failed'),
  });
  const setup = new FirstRunSetup({ storage, users: userDirectory(documents), throttle });
  // Only a process that makes its own code logs it.
  let setupCode: string | null = null;
  if (!options.preparedByPrimary) setupCode = await setup.prepare();

  const app = Fastify({
    logger: loggerOptions(config, options.logStream),
    clientErrorHandler: answerClientError,
    ...serverOptions(config.limits),
    bodyLimit: config.bodyLimit,
    // Who the client is (request.ip: login throttle, logs) comes from X-Forwarded-For only behind trusted proxies.
    trustProxy: trustProxyOption(config.trustProxy),
    routerOptions: {
      // Bracket syntax (`_ids[]=a`, `sort[title]=1`) without prototype keys, with bounded size, parsed when first read.
      querystringParser: lazyQueryString,
      // Long ids reach the route and get a 400 from its schema instead of the router's bare 414.
      maxParamLength: 2000,
    },
    ajv: { customOptions: { coerceTypes: 'array', allErrors: false, removeAdditional: false } },
    frameworkErrors: sendFrameworkError,
  });
  // The primary of several workers brought the index up to the configuration before forking them.
  if (!options.preparedByPrimary) await reindexStaleTypes({ config, storage, fieldTypes }, loggedProgress(app.log));
  // More connections than this are closed as soon as they are accepted; one address gets only its share.
  app.server.maxConnections = config.limits.connections;
  capConnectionsPerAddress(app.server, config.limits.connectionsPerAddress);
  requireBodyRate(app.server, { minBytesPerSecond: config.limits.minBodyRate, graceMs: config.limits.bodyRateGrace });
  registerErrorHandling(app, { readableTypes: (principal) => documents.readableTypeNames(principal) });
  registerNosniff(app);
  // The largest body this server takes at all, JSON or upload, is worth reading to deliver a refusal.
  registerBodyDrain(app, { maxBytes: Math.max(config.bodyLimit, config.uploadLimit), timeout: config.limits.drainTimeout });
  const { jsonDepth, arrayItems, objectKeys, bodyNodes, stringLength } = config.limits;
  registerJsonBody(app, {
    bodyLimit: config.bodyLimit,
    shape: { maxDepth: jsonDepth, maxArrayItems: arrayItems, maxObjectKeys: objectKeys, maxNodes: bodyNodes, maxStringLength: stringLength },
  });
  // Before the CORS and auth hooks, which read the session cookie.
  await app.register(cookie);
  // Any origin may read anonymously (the original mounts cors() on the API); only listed ones may send credentials.
  registerCors(app, { origins: config.corsOrigins });
  // The origin checks and cookies trust only a configured baseUrl, never one derived from the listening address.
  const baseUrl = config.baseUrl ?? '';
  const publicKeys = config.publicDemoKeys ? new PublicKeyGuard({ baseUrl, listenHost: config.host, trustedOrigins: config.corsOrigins }) : null;
  registerAuth(app, { apiKeys: new ApiKeys(config.apiKeys), storedKeys: new StoredApiKeys(storage), tokens, baseUrl, publicKeys });
  // After the auth hook, before the response cache (see there).
  registerReadPosition(app, { routing: storage.connections !== undefined, baseUrl });
  registerHealthRoute(app, { storage });
  registerAuthRoutes(app, { tokens, baseUrl });
  registerAccountRoutes(app, { security: accountSecurity, reset: passwordReset });
  registerSetupRoutes(app, { setup, code: setupCode, baseUrl });
  const schema = new SchemaDescriber(config, fieldTypes);
  registerSchemaRoute(app, { schema });
  const answers = new CachedAnswers({
    cache: new ResponseCache({ maxEntries: limits.responseCacheEntries, maxBytes: limits.responseCacheBytes }),
    generations: (sources, options) => storage.generations(sources, options),
    maxParams: limits.responseCacheParams,
    maxTagsLength: limits.cdnTagsLength,
  });
  // After the auth hook: a cached answer is found by who asks.
  answers.register(app);
  registerPieceRoutes(app, { documents, typeNames: config.pieceTypes.keys(), answers, idempotencyKeyLength: config.limits.idempotencyKeyLength });
  registerSyncRoutes(app, { documents, typeNames: config.pieceTypes.keys() });
  await registerLivePreviewScriptRoute(app);
  await registerMediaRoutes(app, { media, documents, uploadLimit: config.uploadLimit });
  await registerOpenApiRoutes(app, { documents: new OpenApiAnswers(config, fieldTypes), baseUrl: config.baseUrl ?? '' });
  const previewFrames = previewFrameSources([...config.pieceTypes.values()].map((type) => type.options.preview));
  await registerAdminRoutes(app, { dir: options.adminDir ?? builtAdminDir, links, previewFrames });
  // Without a configured baseUrl, links name the address this server listens on, known only now (PORT=0).
  app.addHook('onListen', async () => {
    const address = app.server.address();
    if (address !== null && typeof address === 'object') links.listeningAt(config.host, address.port);
  });
  registerWebhookRoutes(app, { webhooks: new WebhookAdmin({ config, storage, onRetry: wakeDispatcher }) });
  registerAuditRoutes(app, { audit: new AuditReader(storage) });
  registerPresenceRoutes(app, { presence });
  registerPreferencesRoutes(app, { preferences: new UserPreferences(config, storage) });
  registerReleaseRoutes(app, { releases: documents.releases });
  registerDashboardRoutes(app, { dashboard: (principal, query) => documents.dashboard(principal, query) });
  const reviewed = [...config.pieceTypes.values()].filter((type) => type.options.review !== null).map((type) => type.name);
  registerReviewRoutes(app, { review: documents.review, typeNames: reviewed });
  const mcp: McpDeps = {
    documents,
    schema,
    typeNames: new Set(config.pieceTypes.keys()),
    audit: new CallAudit(storage),
    describeError: mapError,
    onInternalError: (error, what) => app.log.error({ err: error }, what),
  };
  registerMcpRoutes(app, { answer: (caller, request, response, body) => answerMcpRequest(mcp, caller, request, response, body), anonymous: config.mcp.anonymous });
  registerEventRoutes(app, {
    config,
    feed,
    presence,
    limits: {
      perCaller: limits.eventStreamsPerCaller,
      perAddress: limits.eventStreamsPerAddress,
      heartbeatMs: limits.eventStreamHeartbeat,
      lifetimeMs: limits.eventStreamLifetime,
    },
  });
  log = app.log;
  dispatcher = new WebhookDispatcher({ storage, endpoints: config.webhooks, limits, log: app.log });
  dispatcher.start();
  const sweeps = scheduleSweeps(() => media.sweep(), {
    intervalMs: limits.attachmentSweepSeconds * 1000,
    onError: (error) => app.log.error({ err: error }, 'the attachment sweep failed; the next one tries again'),
  });
  // Scheduled publishing: every process looks for due schedules; claims make each run once.
  const scheduler = scheduleSweeps(() => documents.runDueSchedules(), {
    intervalMs: limits.schedulerInterval,
    onError: (error) => app.log.error({ err: error }, 'a scheduled publish failed; it is tried again once its lease ends'),
  });
  const auditPrunes = scheduleSweeps(() => pruneAudit(storage, limits), {
    intervalMs: limits.auditPruneSeconds * 1000,
    onError: (error) => app.log.error({ err: error }, 'pruning the audit trail failed; the next round tries again'),
  });
  const changeLogPrunes = scheduleSweeps(() => pruneChangeLog(storage.changes, limits.changeLogKeepHours), {
    intervalMs: 600_000,
    onError: (error) => app.log.error({ err: error }, 'pruning the change log failed; the next round tries again'),
  });
  app.addHook('onClose', async () => {
    feed.close();
    presence.close();
    await changeLogPrunes.stop();
    await scheduler.stop();
    await dispatcher?.stop();
    await sweeps.stop();
    await auditPrunes.stop();
    if (!options.storage) await storage.close();
    content.close();
    mailer?.close();
  });
  return app;
}
