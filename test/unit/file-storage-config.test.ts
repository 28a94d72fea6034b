import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors/app-error.js';

const load = (env: Record<string, string>, config: Record<string, unknown> = {}) => loadConfig({ env, cwd: tmpdir(), config });

async function rejectsAt(env: Record<string, string>, path: string, config: Record<string, unknown> = {}): Promise<string> {
  const error = await load(env, config).then(() => null, (caught: unknown) => caught);
  assert.ok(error instanceof ConfigError, `expected a ConfigError at ${path}, got ${String(error)}`);
  assert.equal(error.path, path, error.message);
  return error.message;
}

test('files stay local unless a bucket is named', async () => {
  assert.deepEqual((await load({})).fileStorage, { kind: 'local' });
});

test('CMS_S3_* variables choose a bucket, with defaults for what they leave out', async () => {
  assert.deepEqual((await load({ CMS_S3_BUCKET: 'my-bucket' })).fileStorage, {
    kind: 's3',
    bucket: 'my-bucket',
    region: 'us-east-1',
    endpoint: undefined,
    forcePathStyle: false,
    credentials: undefined,
    publicUrl: undefined,
  });
  const env = {
    CMS_S3_BUCKET: 'media.example',
    CMS_S3_ENDPOINT: 'http://127.0.0.1:9000/',
    CMS_S3_REGION: 'auto',
    CMS_S3_ACCESS_KEY_ID: 'id-0123',
    CMS_S3_SECRET_ACCESS_KEY: 'secret-0123',
    CMS_S3_PUBLIC_URL: 'https://cdn.example.com/media/',
  };
  assert.deepEqual((await load(env)).fileStorage, {
    kind: 's3',
    bucket: 'media.example',
    region: 'auto',
    endpoint: 'http://127.0.0.1:9000',
    forcePathStyle: true,
    credentials: { accessKeyId: 'id-0123', secretAccessKey: 'secret-0123' },
    publicUrl: 'https://cdn.example.com/media',
  });
  const virtualHosted = (await load({ ...env, CMS_S3_FORCE_PATH_STYLE: 'false' })).fileStorage;
  assert.equal(virtualHosted.kind === 's3' && virtualHosted.forcePathStyle, false, 'an endpoint implies path style unless told otherwise');
});

test('the s3 section of the configuration file, each key overridden by its variable', async () => {
  const s3 = { bucket: 'from-file', region: 'eu-west-1', endpoint: 'https://s3.example.com', forcePathStyle: false, publicUrl: 'https://files.example.com' };
  const fromFile = (await load({}, { s3 })).fileStorage;
  assert.deepEqual(fromFile, { kind: 's3', ...s3, credentials: undefined });
  const overridden = (await load({ CMS_S3_BUCKET: 'from-env', CMS_S3_FORCE_PATH_STYLE: 'true' }, { s3 })).fileStorage;
  assert.deepEqual(overridden, { kind: 's3', ...s3, bucket: 'from-env', forcePathStyle: true, credentials: undefined });
});

test('a broken S3 setting stops the start, naming where it came from', async () => {
  assert.match(await rejectsAt({ CMS_S3_BUCKET: 'Bad_Bucket' }, 'CMS_S3_BUCKET'), /bucket name/);
  assert.match(await rejectsAt({ CMS_S3_BUCKET: 'ok-bucket', CMS_S3_ENDPOINT: 'ftp://x' }, 'CMS_S3_ENDPOINT'), /http or https/);
  assert.match(await rejectsAt({ CMS_S3_BUCKET: 'ok-bucket', CMS_S3_PUBLIC_URL: 'cdn.example.com' }, 'CMS_S3_PUBLIC_URL'), /not an absolute URL/);
  assert.match(await rejectsAt({ CMS_S3_BUCKET: 'ok-bucket', CMS_S3_PUBLIC_URL: 'https://cdn.example.com/?a=1' }, 'CMS_S3_PUBLIC_URL'), /query/);
  assert.match(await rejectsAt({ CMS_S3_BUCKET: 'ok-bucket', CMS_S3_FORCE_PATH_STYLE: 'yes' }, 'CMS_S3_FORCE_PATH_STYLE'), /true or false/);
  assert.match(await rejectsAt({ CMS_S3_BUCKET: 'ok-bucket', CMS_S3_REGION: 'EU West' }, 'CMS_S3_REGION'), /region/);
  const onlyId = await rejectsAt({ CMS_S3_BUCKET: 'ok-bucket', CMS_S3_ACCESS_KEY_ID: 'AKIASECRETID' }, 'CMS_S3_SECRET_ACCESS_KEY');
  assert.ok(!onlyId.includes('AKIASECRETID'), 'a message never repeats a key');
  await rejectsAt({ CMS_S3_BUCKET: 'ok-bucket', CMS_S3_SECRET_ACCESS_KEY: 'shh' }, 'CMS_S3_ACCESS_KEY_ID');
  assert.match(await rejectsAt({ CMS_S3_ENDPOINT: 'http://127.0.0.1:9000' }, 'CMS_S3_ENDPOINT'), /no bucket/);
  await rejectsAt({}, 's3.endpoint', { s3: { bucket: 'ok-bucket', endpoint: 'nope' } });
  await rejectsAt({}, 's3.bucket', { s3: { bucket: 'x' } });
  await rejectsAt({}, 's3.secretAccessKey', { s3: { bucket: 'ok-bucket', secretAccessKey: 'in the file' } });
});
