import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { AppError, InvalidRequestError, NotFoundError } from '../../errors/app-error.js';
import type { LinkBase } from '../../config/link-base.js';

const prefix = '/admin';
const assetsPrefix = `${prefix}/assets/`;

/** Vite names every asset by a hash of its content, so a URL's file never changes. */
const assetOptions = { cacheControl: true, maxAge: 365 * 24 * 3600 * 1000, immutable: true, index: false, dotfiles: 'ignore' } as const;
/** The shell names the current assets: the browser revalidates it (ETag) on every load. */
const shellOptions = { cacheControl: false, index: false } as const;

export interface AdminDeps {
  /** The admin's build (`index.html`, `assets/`): `dist/admin` unless `AppOptions.adminDir` says otherwise. */
  readonly dir: string;
  /** Where links start: uploaded images are served under it, perhaps from another origin. */
  readonly links: LinkBase;
  /** What the Preview pane may frame (`previewFrameSources`): the front ends' origins; empty without live preview. */
  readonly previewFrames: readonly string[];
}

/**
 * The browser admin, a single-page app: its hashed assets under `/admin/assets/`, and its shell
 * (`index.html`) for `/admin` and every other path under it, which are the app's own routes.
 * Copies compressed at build time (`.br`, `.gz`, scripts/compress-admin.mjs) go to clients that accept them.
 */
export async function registerAdminRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  // In a scope of its own: the plugin's reply decorators stay here.
  await app.register(async (scope) => {
    await scope.register(fastifyStatic, { root: deps.dir, serve: false, preCompressed: true, suppressWarning: true });
    scope.route({
      method: ['GET', 'HEAD'],
      url: `${assetsPrefix}*`,
      exposeHeadRoute: false,
      handler: async (request, reply) => reply.sendFile(assetPathOf(request.url), join(deps.dir, 'assets'), assetOptions),
    });
    for (const url of [prefix, `${prefix}/*`]) {
      scope.route({ method: ['GET', 'HEAD'], url, exposeHeadRoute: false, handler: (request, reply) => sendShell(request, reply, deps) });
    }
  });
}

async function sendShell(request: FastifyRequest, reply: FastifyReply, deps: AdminDeps): Promise<FastifyReply> {
  await refuseUnbuilt(deps.dir);
  return reply
    .header('cache-control', 'no-cache')
    .header('content-security-policy', contentSecurityPolicy(request, deps.links.url, deps.previewFrames))
    .header('referrer-policy', 'same-origin')
    .header('x-frame-options', 'DENY')
    .sendFile('index.html', deps.dir, shellOptions);
}

/** 503 while `npm run build` has not made the admin (checked per request: a build needs no restart); the API works without it. */
async function refuseUnbuilt(dir: string): Promise<void> {
  const shell = await stat(join(dir, 'index.html')).catch(() => null);
  if (!shell?.isFile()) {
    throw new AppError('unavailable', 'The admin is not built: run `npm run build`.');
  }
}

/**
 * Scripts, styles and API calls only from this origin; no plugins or `<base>`, and no frames but
 * the front ends of live preview. Images may also be data or blob URLs (previews of files being
 * uploaded) and uploads, which sit under `baseUrl`: another origin when `baseUrl` names one.
 */
function contentSecurityPolicy(request: FastifyRequest, baseUrl: string, previewFrames: readonly string[]): string {
  const uploads = uploadsOrigin(request, baseUrl);
  return [
    "default-src 'self'",
    ...(previewFrames.length > 0 ? [`frame-src 'self' ${previewFrames.join(' ')}`] : []),
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob:${uploads ? ` ${uploads}` : ''}`,
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

/** The origin of an absolute `baseUrl` when it is not the one the admin was loaded from; else null. */
function uploadsOrigin(request: FastifyRequest, baseUrl: string): string | null {
  if (!/^https?:\/\//i.test(baseUrl) || !URL.canParse(baseUrl)) return null;
  const origin = new URL(baseUrl).origin;
  const own = `${request.protocol}://${request.host}`;
  return URL.canParse(own) && new URL(own).origin === origin ? null : origin;
}

/**
 * The file an `/admin/assets/` URL names, relative to the assets folder. Only plain names
 * separated by `/` pass: no `.` or `..` segment, no empty one, no encoded separator, no
 * backslash or control character (NUL), so the path cannot leave the folder, whatever the
 * static file code would make of it.
 */
function assetPathOf(url: string): string {
  const raw = url.split('?', 1)[0]!.slice(assetsPrefix.length);
  // The folder itself or a folder under it: nothing to list.
  if (raw === '' || raw.endsWith('/')) throw new NotFoundError();
  const malformed = new InvalidRequestError('The asset path is malformed.');
  if (/%(2f|5c)/i.test(raw)) throw malformed;
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    throw malformed;
  }
  const badSegment = (segment: string) => segment === '' || segment === '.' || segment === '..' || /[\\\u0000-\u001f\u007f]/.test(segment);
  if (path.split('/').some(badSegment)) throw malformed;
  return path;
}
