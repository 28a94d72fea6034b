import { PayloadTooLargeError } from '../../errors/app-error.js';
import type { StoredDocument } from '../../storage/storage-adapter.js';

/**
 * Refuses a version larger than `limits.documentBytes` as JSON, before it is stored: every later
 * write of the document reads, copies, converts and saves it again, all on the event loop, so
 * its size is what one contributor could make everybody wait for.
 */
export function checkDocumentSize(doc: StoredDocument, max: number): void {
  const bytes = Buffer.byteLength(JSON.stringify(doc));
  if (bytes > max) {
    throw new PayloadTooLargeError(`A document may have at most ${max} bytes as JSON (limits.documentBytes); this one would have ${bytes}`, {
      limit: 'documentBytes',
      max,
      bytes,
    });
  }
}
