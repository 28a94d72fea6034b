import type { Readable } from 'node:stream';

/** What the store knows of one stored file. */
export interface StoredFileInfo {
  readonly size: number;
  readonly modifiedAt: Date;
}

/** Where to look for a stored file: where readable files are (the default), or where unreadable ones are kept. */
export interface FileLocation {
  readonly unreadable?: boolean;
}

/**
 * Where attachment files live, by key (`attachments/<file name>`). The media service only moves
 * finished local files in and removes them, so another driver (an S3-compatible bucket, say)
 * implements these verbs and nothing above it changes. Keys are built by the service from
 * laundered record values; drivers still refuse any key that could leave their root.
 */
export interface FileStorage {
  /** Moves the finished local file at `localPath` into the store as `key`, replacing any file there. */
  put(key: string, localPath: string): Promise<void>;
  /** Removes `key`, readable or not; a file that is not there is not an error. */
  remove(key: string): Promise<void>;
  /**
   * Size and time of `key`, or null when there is no such readable file (or the key is not a
   * valid one); with `unreadable`, of the file kept unreadable (an export reads those too).
   */
  stat(key: string, location?: FileLocation): Promise<StoredFileInfo | null>;
  /** The file's bytes (with `unreadable`: the file kept unreadable); fails like `fs.createReadStream` when it is missing. */
  createReadStream(key: string, location?: FileLocation): Readable;
  /** The public URL of `key`. */
  url(key: string): string;
  /**
   * Makes `key` unreadable through its URL and createReadStream (false), or readable again (true).
   * A missing file is not an error.
   */
  setReadable(key: string, readable: boolean): Promise<void>;
  /** Every stored key under `prefix` with its info, for reclaiming files that no record names. */
  list(prefix: string): AsyncIterable<{ readonly key: string; readonly info: StoredFileInfo }>;
}

// Path segments of plain names only: no "..", no hidden files, no separators of another system.
const keyPattern = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9._-]*)*$/i;

/** Whether `key` is one a driver may store: plain name segments that cannot leave its root. */
export function isValidFileKey(key: string): boolean {
  return keyPattern.test(key);
}
