import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { GetObjectCommand, ListObjectsCommand, S3Client } from '@aws-sdk/client-s3';
import { createS3FileStorage } from '../../src/media/s3-file-storage.js';

/** s3rver's one account; it checks request signatures against these. */
export const s3rverCredentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export interface TestBucket {
  /** The service's URL on loopback (path-style: `<endpoint>/<bucket>/<key>`). */
  readonly endpoint: string;
  readonly bucket: string;
  /** Where the bucket's objects are fetched anonymously, as a public URL prefix. */
  readonly bucketUrl: string;
  /** The CMS_S3_* variables that point an app at this bucket. */
  env(extra?: { publicUrl?: boolean }): Record<string, string>;
  /** Every object key in the bucket, sorted, read with a client of the test's own. */
  keys(): Promise<string[]>;
  /** An object's bytes, or null when there is none. */
  bytes(key: string): Promise<Buffer | null>;
  /** A driver on this bucket, as the app makes it; `publicUrl` defaults to the bucket's URL. */
  driver(publicUrl?: string, listPageSize?: number): ReturnType<typeof createS3FileStorage>;
  close(): Promise<void>;
}

/** A real S3-protocol server (s3rver) on a free loopback port, storing in a temp directory, with one bucket. */
export async function startTestBucket(bucket = 'cms-test'): Promise<TestBucket> {
  const directory = await mkdtemp(join(tmpdir(), 'cms-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const bucketUrl = `${endpoint}/${bucket}`;
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: s3rverCredentials });
  const drivers: ReturnType<typeof createS3FileStorage>[] = [];
  return {
    endpoint,
    bucket,
    bucketUrl,
    env(extra = {}) {
      return {
        CMS_S3_BUCKET: bucket,
        CMS_S3_ENDPOINT: endpoint,
        CMS_S3_REGION: 'us-east-1',
        CMS_S3_FORCE_PATH_STYLE: 'true',
        CMS_S3_ACCESS_KEY_ID: s3rverCredentials.accessKeyId,
        CMS_S3_SECRET_ACCESS_KEY: s3rverCredentials.secretAccessKey,
        ...(extra.publicUrl ? { CMS_S3_PUBLIC_URL: bucketUrl } : {}),
      };
    },
    async keys() {
      // s3rver fails continuation tokens on Node 17 and later (see the driver's listing): pages go by Marker.
      const keys: string[] = [];
      for (;;) {
        const page = await client.send(new ListObjectsCommand({ Bucket: bucket, Marker: keys.at(-1) }));
        keys.push(...(page.Contents ?? []).map((object) => object.Key!));
        if (!page.IsTruncated || !page.Contents?.length) return keys.sort();
      }
    },
    async bytes(key) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return Buffer.from(await answer.Body!.transformToByteArray());
      } catch (error) {
        if ((error as { name?: string }).name === 'NoSuchKey') return null;
        throw error;
      }
    },
    driver(publicUrl = bucketUrl, listPageSize) {
      const driver = createS3FileStorage({ bucket, region: 'us-east-1', endpoint, forcePathStyle: true, credentials: s3rverCredentials, publicUrl: () => publicUrl, listPageSize });
      drivers.push(driver);
      return driver;
    },
    async close() {
      client.destroy();
      for (const driver of drivers) driver.close();
      // The SDK keeps connections alive: closing waits for none of them.
      server.httpServer?.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
