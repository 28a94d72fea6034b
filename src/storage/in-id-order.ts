import type { StoredAttachment } from './interface/attachments.js';

/** Attachments in bytewise `_id` order, as the databases order them (ids are ASCII). */
export function inIdOrder(attachments: StoredAttachment[]): StoredAttachment[] {
  return attachments.sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
}
