import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { StorageAdapter } from '../../src/storage/storage-adapter.js';
import { loadAppConfig } from '../../src/load-app-config.js';
import type { AppConfig } from '../../src/content/app-config.js';
import { buildApp, type AppOptions } from '../../src/app.js';
import { createStorage } from '../../src/storage/create-storage.js';
import { ScryptPasswordHasher } from '../../src/auth/passwords.js';
import { newSchemaDatabase } from './postgres.js';
import { recordResponses, type ResponseMismatch } from './openapi-recorder.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

/** scrypt at a test cost: suites that create users and sign in many times stay fast. */
export const cheapPasswordHasher = () => new ScryptPasswordHasher({ concurrency: 2, queueLimit: 100, params: { N: 1024, r: 8, p: 1 } });

export const keys = {
  admin: 'test-admin-key-0123456789',
  editor: 'test-editor-key-0123456789',
  contributor: 'test-contributor-key-0123456789',
  guest: 'test-guest-key-0123456789',
} as const;

/** Fixture types: `article` (public projection, relationship, area) and `note` (no public API). */
export function testConfig(): Record<string, unknown> {
  return {
    baseUrl: 'http://cms.test',
    locales: { en: { label: 'English' }, es: { label: 'Español' } },
    apiKeys: {
      [keys.admin]: { role: 'admin' },
      [keys.editor]: { role: 'editor' },
      [keys.contributor]: { role: 'contributor' },
      [keys.guest]: { role: 'guest' },
    },
    modules: {
      article: {
        extend: '@cms/piece-type',
        options: {
          label: 'Article',
          publicApiProjection: { title: 1, slug: 1, category: 1, _url: 1, _author: 1 },
          pagePath: '/articles',
        },
        fields: {
          add: {
            category: { type: 'string' },
            priority: { type: 'integer', min: 0, max: 100 },
            tags: {
              type: 'checkboxes',
              choices: [
                { label: 'News', value: 'news' },
                { label: 'Tech', value: 'tech' },
              ],
            },
            color: {
              type: 'select',
              choices: [
                { label: 'Red', value: 'red' },
                { label: 'Blue', value: 'blue' },
              ],
            },
            _author: { type: 'relationship', withType: '@cms/user' },
            _related: { type: 'relationship', withType: 'article', max: 2 },
            body: { type: 'area', options: { widgets: { '@cms/rich-text': {} } } },
            links: {
              type: 'array',
              fields: { add: { label: { type: 'string', required: true }, url: { type: 'url' } } },
            },
          },
        },
      },
      note: {
        extend: '@cms/piece-type',
        options: { label: 'Note' },
        fields: { add: { text: { type: 'string', textarea: true } } },
      },
    },
  };
}

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  // Tests read arbitrary response properties; the assertions check their shape.
  body: any;
}

export interface TestApp {
  app: FastifyInstance;
  dataDir: string;
  /** The store's URL (`sqlite:<file>` or `postgres://…`), for tests that read it directly. */
  databaseUrl: string;
  request(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS',
    url: string,
    options?: { body?: unknown; key?: keyof typeof keys | null; headers?: Record<string, string>; payload?: string },
  ): Promise<TestResponse>;
  /** Listens on a free loopback port, for tests about sockets; returns the port. */
  listen(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The store the API tests run on: a fresh SQLite file each, or, with CMS_TEST_API_DATABASE=postgres
 * (and CMS_TEST_POSTGRES_URL), a fresh PostgreSQL schema each (`npm run test:postgres`).
 */
export const apiTestsOnPostgres = process.env.CMS_TEST_API_DATABASE === 'postgres';

/** The database URL of a new test app, and how to drop what it stored. */
async function testDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (!apiTestsOnPostgres) return { env: {}, drop: async () => undefined };
  const database = await newSchemaDatabase();
  return { env: { CMS_DATABASE_URL: database.url }, drop: database.drop };
}

/** A real app on a fresh store and temp directory; requests go through Fastify's inject. */
export async function startTestApp(
  config: Record<string, unknown> = testConfig(),
  env: Record<string, string> = {},
  options: {
    wrapStorage?(adapter: StorageAdapter): StorageAdapter;
    passwordHasher?: AppOptions['passwordHasher'];
    logStream?: { write(line: string): void };
    adminDir?: string;
    images?: AppOptions['images'];
  } = {},
): Promise<TestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cms-test-'));
  const database = await testDatabase();
  let storage: StorageAdapter | undefined;
  let loaded: AppConfig;
  let app: FastifyInstance;
  try {
    loaded = await loadAppConfig({
      config,
      env: { CMS_DATA_DIR: dataDir, CMS_LOG_LEVEL: 'silent', ...database.env, ...env },
      cwd: dataDir,
    });
    // A wrapped store (tests counting queries) is the test's to close: the app closes only its own.
    storage = options.wrapStorage?.(await createStorage(loaded.databaseUrl, { attachmentsGenerationKey, writesPerCommit: loaded.limits.writesPerCommit, walCheckpointPages: loaded.limits.walCheckpointPages }));
    app = await buildApp(loaded, { storage, passwordHasher: options.passwordHasher, logStream: options.logStream, adminDir: options.adminDir, images: options.images });
  } catch (error) {
    // A test that expects the start to fail leaves no schema, database or directory behind.
    await storage?.close();
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  // Every answer is checked against the OpenAPI document; a mismatch fails the request's test.
  const recorder = recordResponses(app, loaded);
  return {
    app,
    dataDir,
    databaseUrl: loaded.databaseUrl,
    async request(method, url, options = {}) {
      const key = options.key === undefined ? 'admin' : options.key;
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      if (key) headers.authorization = `ApiKey ${keys[key]}`;
      let payload: string | undefined = options.payload;
      if (options.body !== undefined) {
        payload = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await app.inject({ method, url, headers, payload });
      failOnMismatch(recorder.take());
      let body: unknown = undefined;
      try {
        body = response.body === '' ? undefined : JSON.parse(response.body);
      } catch {
        body = undefined;
      }
      return { status: response.statusCode, headers: response.headers, text: response.body, body };
    },
    async listen() {
      await app.listen({ port: 0, host: '127.0.0.1' });
      return (app.server.address() as AddressInfo).port;
    },
    async close() {
      await app.close();
      await storage?.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
      // Answers to requests the test injected itself (uploads, raw sockets) are checked here.
      failOnMismatch(recorder.take());
    },
  };
}

function failOnMismatch(mismatches: readonly ResponseMismatch[]): void {
  if (mismatches.length === 0) return;
  const lines = mismatches.map((m) => `${m.method} ${m.url} → ${m.status}: ${m.problem}`);
  throw new Error(`The answer does not match the OpenAPI document:\n${lines.join('\n')}`);
}

export const isoDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const docIdPattern = /^[a-z][a-z0-9]{23}$/;

/** A user made and signed in through the API. */
export interface SignedInUser {
  /** The bearer header that acts as them. */
  readonly headers: Record<string, string>;
  readonly id: string;
  readonly username: string;
  /** `<username> Person`. */
  readonly title: string;
}

/** A new user of `role` named `username` (password `<username>-password-123`), signed in with a bearer token. */
export async function signedInUser(t: TestApp, username: string, role: string): Promise<SignedInUser> {
  const password = `${username}-password-123`;
  const title = `${username} Person`;
  const user = await t.request('POST', '/api/v1/@cms/user', { body: { title, username, password, role } });
  if (user.status !== 200) throw new Error(`creating ${username} answered ${user.status}: ${user.text}`);
  const login = await t.request('POST', '/api/v1/@cms/login/login', { key: null, body: { username, password } });
  if (login.status !== 200) throw new Error(`signing ${username} in answered ${login.status}: ${login.text}`);
  return { headers: { authorization: `Bearer ${login.body.token}` }, id: user.body._id, username, title };
}
