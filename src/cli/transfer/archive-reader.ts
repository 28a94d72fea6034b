import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';

/** An archive that cannot be imported: the message says what is wrong with it. */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
}

export interface ArchiveEntry {
  readonly name: string;
  readonly size: number;
  readonly type: string;
  /** The entry's bytes; read them, or `skip()`, before the next entry. */
  readonly body: AsyncIterable<Buffer>;
  skip(): Promise<void>;
}

/**
 * The entries of the gzipped tar at `path`, one after another, streamed. A damaged archive (not
 * gzip, truncated, a broken tar) ends the iteration with an ArchiveError. Leaving the loop early
 * stops reading the file.
 */
export async function* archiveEntries(path: string): AsyncGenerator<ArchiveEntry> {
  const source = createReadStream(path);
  const gunzip = createGunzip();
  const extract = tar.extract();
  // The first failure of any stage ends the extraction, whose iteration then throws it.
  for (const stage of [source, gunzip]) stage.on('error', (error: Error) => extract.destroy(error));
  source.pipe(gunzip).pipe(extract);
  try {
    for await (const entry of extract) {
      const { name, size = 0, type = 'file' } = entry.header;
      yield {
        name,
        size,
        type: type ?? 'file',
        body: bodyOf(entry as AsyncIterable<Buffer>),
        async skip() {
          try {
            for await (const _ of entry);
          } catch (error) {
            throw damaged(error);
          }
        },
      };
    }
  } catch (error) {
    throw damaged(error);
  } finally {
    source.destroy();
    gunzip.destroy();
    extract.destroy();
  }
}

async function* bodyOf(entry: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield* entry;
  } catch (error) {
    throw damaged(error);
  }
}

function damaged(error: unknown): ArchiveError {
  if (error instanceof ArchiveError) return error;
  return new ArchiveError(`the archive is damaged (not a complete gzipped tar): ${(error as Error).message}`);
}

function decode(decoder: TextDecoder, bytes: Buffer, problem: () => string): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new ArchiveError(problem());
  }
}

/**
 * The lines of `source`, each at most `maxBytes` (UTF-8, checked); the last must end with a
 * newline as every line this format writes does. `where` names the part in messages.
 */
export async function* linesOf(source: AsyncIterable<Buffer>, maxBytes: number, where: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineNumber = 0;
  const take = (piece: Buffer) => {
    pendingBytes += piece.length;
    if (pendingBytes > maxBytes) throw new ArchiveError(`line ${lineNumber + 1} of ${where} is longer than ${maxBytes} bytes (limits.archiveRecordBytes)`);
    pending.push(piece);
  };
  for await (const chunk of source) {
    let start = 0;
    for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
      take(chunk.subarray(start, end));
      lineNumber++;
      const line = decode(decoder, Buffer.concat(pending, pendingBytes), () => `line ${lineNumber} of ${where} is not UTF-8`);
      yield line;
      pending = [];
      pendingBytes = 0;
      start = end + 1;
    }
    if (start < chunk.length) take(chunk.subarray(start));
  }
  if (pendingBytes > 0) throw new ArchiveError(`${where} does not end with a newline: it is truncated`);
}
