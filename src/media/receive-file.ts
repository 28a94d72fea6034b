import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, InvalidRequestError, PayloadTooLargeError } from '../errors/app-error.js';

/** What was learnt of an upload while it streamed to disk. */
export interface ReceivedFile {
  readonly path: string;
  readonly length: number;
  readonly md5: string;
  /** The first `headLength` bytes, for sniffing the format. */
  readonly head: Buffer;
  readonly containsNul: boolean;
}

/**
 * Streams an upload into a new file at `path`, never holding more than a chunk in memory,
 * computing its MD5 and length on the way and stopping with a 413 past `limit` bytes. A failure
 * of the client's stream (cut off, malformed) is a 400; a failure to write is ours. `onChunk`
 * sees each chunk's length before it is written, and may refuse it by throwing. The caller
 * removes `path` on failure.
 */
export async function receiveFile(
  source: Readable,
  options: { path: string; limit: number; headLength: number; onChunk?: (length: number) => void },
): Promise<ReceivedFile> {
  const { limit, headLength } = options;
  const md5 = createHash('md5');
  const headChunks: Buffer[] = [];
  let headSize = 0;
  let length = 0;
  let containsNul = false;
  let sourceError: unknown;
  source.once('error', (error) => {
    sourceError = error;
  });

  const inspect = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      length += chunk.length;
      if (length > limit) {
        callback(new PayloadTooLargeError(`The file is larger than the upload limit of ${limit} bytes`, { limit }));
        return;
      }
      try {
        options.onChunk?.(chunk.length);
      } catch (error) {
        callback(error as Error);
        return;
      }
      md5.update(chunk);
      containsNul ||= chunk.includes(0);
      if (headSize < headLength) {
        headChunks.push(chunk.subarray(0, headLength - headSize));
        headSize += Math.min(chunk.length, headLength - headSize);
      }
      callback(null, chunk);
    },
  });

  const sink = createWriteStream(options.path, { flags: 'wx' });
  try {
    await pipeline(source, inspect, sink);
  } catch (error) {
    // A refusal can come before the file is even open: once it opens, it is closed, and only
    // then may the caller remove it (else it would be created after the removal and stay).
    if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
    if (error instanceof AppError) throw error;
    // The source may have failed before this function listened: its `errored` keeps the reason.
    if (sourceError !== undefined || source.errored) {
      throw new InvalidRequestError('The upload was cut off or is not well-formed multipart data');
    }
    throw error;
  }
  return { path: options.path, length, md5: md5.digest('hex'), head: Buffer.concat(headChunks), containsNul };
}

/** The length and MD5 of a finished local file, as an attachment record states them. */
export async function digestFile(path: string): Promise<{ length: number; md5: string }> {
  const md5 = createHash('md5');
  let length = 0;
  for await (const chunk of createReadStream(path)) {
    md5.update(chunk as Buffer);
    length += (chunk as Buffer).length;
  }
  return { length, md5: md5.digest('hex') };
}
