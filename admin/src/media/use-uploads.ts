import { reactive } from 'vue';
import { errorMessage } from '../ui/notify';

/** One file on its way to the server, as the progress list shows it. */
export interface UploadItem<T> {
  readonly id: number;
  readonly name: string;
  /** 0 to 1 while sending; the server then still checks and sizes the file. */
  progress: number;
  status: 'waiting' | 'sending' | 'done' | 'failed';
  error: string;
}

/**
 * The server runs at most 3 uploads per user at once (`limits.uploadsInFlight`) and answers 429
 * past that, so files wait their turn here instead of being refused.
 */
const concurrentUploads = 3;
let nextId = 1;

export type UploadOne<T> = (file: File, onProgress: (fraction: number) => void) => Promise<T>;

/** A queue of uploads, each with its own progress and its own error (the server's message). */
export function useUploads<T>() {
  const items = reactive<UploadItem<T>[]>([]);

  async function runOne(item: UploadItem<T>, file: File, upload: UploadOne<T>, onDone: (result: T) => void) {
    item.status = 'sending';
    try {
      const result = await upload(file, (fraction) => (item.progress = fraction));
      item.progress = 1;
      item.status = 'done';
      onDone(result);
    } catch (error) {
      item.status = 'failed';
      item.error = errorMessage(error);
    }
  }

  /** Uploads every file, a few at a time; `onDone` runs for each success as it lands. */
  async function start(files: readonly File[], upload: UploadOne<T>, onDone: (result: T) => void = () => {}): Promise<void> {
    const queued = files.map((file) => {
      items.push({ id: nextId++, name: file.name, progress: 0, status: 'waiting', error: '' });
      return { file, item: items[items.length - 1]! };
    });
    const worker = async () => {
      for (let next = queued.shift(); next; next = queued.shift()) await runOne(next.item, next.file, upload, onDone);
    };
    await Promise.all(Array.from({ length: Math.min(concurrentUploads, queued.length) }, worker));
  }

  /** Forgets finished uploads (failures stay until dismissed, so their message can be read). */
  function clearFinished(): void {
    for (let index = items.length - 1; index >= 0; index--) if (items[index]!.status === 'done') items.splice(index, 1);
  }

  /** Forgets every upload row, failures included (the field's value was replaced by hand). */
  function clearAll(): void {
    items.splice(0, items.length);
  }

  /** A file refused before sending (wrong kind), listed with the others so its reason shows. */
  function refuse(name: string, error: string): void {
    items.push({ id: nextId++, name, progress: 0, status: 'failed', error });
  }

  function dismiss(id: number): void {
    const index = items.findIndex((item) => item.id === id);
    if (index >= 0) items.splice(index, 1);
  }

  return { items, start, clearFinished, clearAll, refuse, dismiss };
}
