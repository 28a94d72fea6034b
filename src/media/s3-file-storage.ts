import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { isValidFileKey, type FileStorage, type StoredFileInfo } from './file-storage.js';
import { contentTypeOf } from './content-types.js';

/** Where a bucket is and how to reach it; credentials absent: the standard AWS chain finds them. */
export interface S3FileStorageOptions {
  readonly bucket: string;
  readonly region: string;
  /** An S3-compatible service's URL (MinIO, R2, s3rver…); absent: AWS itself. */
  readonly endpoint?: string;
  /** `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint>/<key>`; most self-hosted services need it. */
  readonly forcePathStyle: boolean;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /**
   * Where readable files are served: `<publicUrl>/<key>`. A bucket URL or a CDN in front of it,
   * or the server's own `<baseUrl>/uploads`, whose route then streams them from the bucket.
   * Asked at each link: without a configured `baseUrl`, the server's is known once it listens.
   */
  readonly publicUrl: () => string;
  /** Keys per listing request; undefined: the service's own (1,000 on S3). */
  readonly listPageSize?: number;
}

/**
 * Unreadable files are moved under this prefix, which no valid key can start with (a key's first
 * character is a letter or digit), so they never collide with a readable one. Moving works on every
 * S3-compatible service, unlike object ACLs (off on new AWS buckets, ignored by s3rver): a bucket
 * served publicly must grant public reads on the readable prefixes only (`attachments/*`).
 */
export const unreadablePrefix = '_unreadable/';

// Parts of 8 MiB, four at a time: a 50 MiB upload is 7 parts, at most 32 MiB in memory per upload.
const partSize = 8 * 1024 * 1024;
const partsInFlight = 4;

// A stored file never changes: its name holds the attachment's unique id (and crop and size).
const immutable = 'public, max-age=31536000, immutable';

/**
 * Files in an S3-compatible bucket, one object per key. A put streams the finished local file
 * (multipart when large) and removes it: S3 has no rename, and the object appears whole or not at
 * all, so readers never see half a file.
 */
export function createS3FileStorage(options: S3FileStorageOptions): FileStorage & { close(): void } {
  const { bucket } = options;
  const client = new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    // A copy: the SDK marks the object it is given, and the configuration's is frozen.
    credentials: options.credentials && { ...options.credentials },
    // The SDK's default checksums (since 3.729) are refused by several S3-compatible services (R2,
    // B2, GCS…): elsewhere than AWS they are sent only where the API requires them.
    ...(options.endpoint ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
  });

  function requireKey(key: string): string {
    if (!isValidFileKey(key)) throw new Error(`Invalid file storage key: ${JSON.stringify(key)}`);
    return key;
  }

  async function head(objectKey: string): Promise<StoredFileInfo | null> {
    try {
      const answer = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey }));
      return { size: answer.ContentLength ?? 0, modifiedAt: answer.LastModified ?? new Date(0) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async function remove(objectKey: string): Promise<void> {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey }));
  }

  /** Copies then deletes, so a crash between the two leaves both copies, never none. */
  async function move(from: string, to: string): Promise<void> {
    try {
      await client.send(new CopyObjectCommand({ Bucket: bucket, Key: to, CopySource: `${bucket}/${from}` }));
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    await remove(from);
  }

  /**
   * The first listing API, each page starting after the last key seen (Marker), which every
   * S3-compatible service supports: s3rver makes the second API's continuation tokens with DES,
   * which OpenSSL 3 (Node 17 on) lacks, so its truncated listings fail.
   */
  async function* listed(prefix: string): AsyncGenerator<{ key: string; info: StoredFileInfo }> {
    let after: string | undefined;
    for (;;) {
      const page = await client.send(new ListObjectsCommand({ Bucket: bucket, Prefix: prefix, Marker: after, MaxKeys: options.listPageSize }));
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        after = object.Key;
        yield { key: object.Key, info: { size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) } };
      }
      if (!page.IsTruncated || !page.Contents?.length) return;
    }
  }

  return {
    async put(key, localPath) {
      requireKey(key);
      const upload = new Upload({
        client,
        params: {
          Bucket: bucket,
          Key: key,
          Body: createReadStream(localPath),
          ContentType: contentTypeOf(key.slice(key.lastIndexOf('.') + 1)),
          CacheControl: immutable,
        },
        partSize,
        queueSize: partsInFlight,
      });
      await upload.done();
      await rm(localPath, { force: true });
    },

    async remove(key) {
      requireKey(key);
      await Promise.all([remove(key), remove(unreadablePrefix + key)]);
    },

    async stat(key, location) {
      if (!isValidFileKey(key)) return null;
      return head(location?.unreadable ? unreadablePrefix + key : key);
    },

    createReadStream(key, location) {
      requireKey(key);
      const output = new PassThrough();
      const objectKey = location?.unreadable ? unreadablePrefix + key : key;
      client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey })).then(
        (answer) => {
          const body = answer.Body as Readable;
          body.on('error', (error) => output.destroy(error));
          body.pipe(output);
        },
        (error: unknown) => output.destroy(isMissing(error) ? missingFileError(key) : (error as Error)),
      );
      return output;
    },

    url(key) {
      return `${options.publicUrl()}/${key}`;
    },

    async setReadable(key, readable) {
      requireKey(key);
      const hidden = unreadablePrefix + key;
      await (readable ? move(hidden, key) : move(key, hidden));
    },

    /** A key whose move was interrupted (both copies stored) is listed twice. */
    async *list(prefix) {
      if (prefix.startsWith(unreadablePrefix)) return;
      // Unreadable files are stored files too: reclaiming one that no record names removes it.
      for (const source of [prefix, unreadablePrefix + prefix]) {
        for await (const { key, info } of listed(source)) {
          // A listing of everything meets the unreadable copies too: the second pass reports them.
          if (source === prefix && key.startsWith(unreadablePrefix)) continue;
          const logical = key.startsWith(unreadablePrefix) ? key.slice(unreadablePrefix.length) : key;
          // Objects that are not the CMS's (another tool sharing the bucket) are never reported.
          if (isValidFileKey(logical)) yield { key: logical, info };
        }
      }
    },

    close() {
      client.destroy();
    },
  };
}

function isMissing(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  return error.$metadata.httpStatusCode === 404 || error.name === 'NoSuchKey' || error.name === 'NotFound';
}

/** The error `fs.createReadStream` gives for a missing file, so callers handle both drivers alike. */
function missingFileError(key: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no such file in the bucket: ${key}`), { code: 'ENOENT' });
}
