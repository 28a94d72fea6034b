import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart, { type MultipartFile } from '@fastify/multipart';
import type { IncomingFile, MediaService, ServedFile } from '../../media/media-service.js';
import type { DocumentOperations } from '../../content/documents/document-operations.js';
import { imageTypeName } from '../../content/types/builtin-types.js';
import { imageSourceUrl } from '../../media/image-source.js';
import { idParams, imageSourceQuery, versionQuery } from '../schemas.js';
import { idOf, callerOf, originOf } from '../caller.js';
import { matchesNoneMatch } from '../etag.js';
import {
  AppError,
  InvalidRequestError,
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from '../../errors/app-error.js';

// A stored file never changes: its name holds the attachment's unique id (and crop and size).
const immutable = 'public, max-age=31536000, immutable';

/**
 * The attachment routes (`upload`, `crop`, `focal-point`) and the files themselves under `/uploads/`. Each
 * handler translates the request into one MediaService call.
 */
export async function registerMediaRoutes(
  app: FastifyInstance,
  deps: { media: MediaService; documents: DocumentOperations; uploadLimit: number },
): Promise<void> {
  const { media, documents } = deps;
  // Multipart parsing is registered for the upload route alone: every other route keeps refusing it with a 415.
  await app.register(async (scope) => {
    await scope.register(multipart, {
      throwFileSizeLimit: false,
      // One byte past the limit reaches the service, which refuses the file with a 413.
      limits: { fileSize: deps.uploadLimit + 1, files: 10, fields: 20, fieldSize: 64 * 1024, fieldNameSize: 200, parts: 40, headerPairs: 100 },
    });
    scope.post('/api/v1/@cms/attachment/upload', async (request) => {
      const taken: MultipartFile[] = [];
      try {
        return await media.upload({
          principal: request.principal,
          callerId: request.callerId,
          origin: originOf(request),
          receive: async () => {
            const part = await filePart(request);
            if (part) taken.push(part);
            return part && ({ filename: part.filename, stream: part.file } satisfies IncomingFile);
          },
        });
      } finally {
        // A refused upload is still read to its end, so the client gets the answer instead of a stalled request.
        for (const part of taken) if (!part.file.readableEnded) part.file.resume();
      }
    });
  });

  app.post('/api/v1/@cms/attachment/crop', async (request) => media.crop({ principal: request.principal, callerId: request.callerId }, request.body));

  app.post('/api/v1/@cms/attachment/focal-point', async (request) =>
    media.setFocalPoint({ principal: request.principal, callerId: request.callerId }, request.body),
  );

  // The images are found as a list of `@cms/image` finds them for this caller, in its locale and mode.
  app.post(`/api/v1/${imageTypeName}/autocrop`, { schema: { querystring: versionQuery } }, async (request) =>
    media.autocrop({ principal: request.principal, callerId: request.callerId }, request.body, async (ids) => {
      const found = await documents.list(callerOf(request), imageTypeName, { _ids: [...ids], perPage: String(ids.length) });
      return 'results' in found ? found.results : [];
    }),
  );

  // The image links rich text holds: a redirect to one size of the image piece's file.
  app.get(`/api/v1/${imageTypeName}/:_id/src`, { schema: { params: idParams, querystring: imageSourceQuery } }, async (request, reply) => {
    const { document: image } = await documents.getOne(callerOf(request), imageTypeName, idOf(request));
    return reply.redirect(imageSourceUrl(image, (request.query as { size?: string }).size));
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/uploads/*',
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      const file = await media.file((request.params as { '*': string })['*']);
      if (!file) throw new NotFoundError();
      return sendFile(request, reply, file);
    },
  });
}

/** The part named `file`; other files are skipped, fields ignored. Parser failures become 4xx. */
async function filePart(request: FastifyRequest): Promise<MultipartFile | null> {
  if (!request.isMultipart()) {
    throw new UnsupportedMediaTypeError('Send the file as multipart/form-data (Content-Type: multipart/form-data), in the part named "file"', {
      accepted: ['multipart/form-data'],
    });
  }
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue;
      if (part.fieldname === 'file') return part;
      part.file.resume();
    }
    return null;
  } catch (error) {
    throw multipartError(error);
  }
}

function multipartError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if ((error as { statusCode?: unknown }).statusCode === 413) return new PayloadTooLargeError('The multipart body has too many or too large parts');
  return new InvalidRequestError(`The multipart body is malformed: ${(error as Error).message}`);
}

/** The file with validators and caching headers; 304 when the client's copy is current. */
function sendFile(request: FastifyRequest, reply: FastifyReply, file: ServedFile) {
  const etag = `"${file.size.toString(16)}-${file.modifiedAt.getTime().toString(16)}"`;
  void reply
    .header('etag', etag)
    .header('last-modified', file.modifiedAt.toUTCString())
    .header('cache-control', immutable)
    .header('x-content-type-options', 'nosniff');
  // An SVG opened on its own is a document: it may show itself, never run anything.
  if (file.contentType.startsWith('image/svg')) void reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  if (isNotModified(request, etag, file.modifiedAt)) return reply.code(304).send();
  void reply.type(file.contentType).header('content-length', file.size);
  return request.method === 'HEAD' ? reply.send() : reply.send(file.open());
}

/** If-None-Match wins over If-Modified-Since (RFC 9110 13.2.2); HTTP dates have whole seconds. */
function isNotModified(request: FastifyRequest, etag: string, modifiedAt: Date): boolean {
  const noneMatch = request.headers['if-none-match'];
  if (typeof noneMatch === 'string') return matchesNoneMatch(noneMatch, etag);
  const since = Date.parse(request.headers['if-modified-since'] ?? '');
  return Number.isFinite(since) && Math.floor(modifiedAt.getTime() / 1000) * 1000 <= since;
}
