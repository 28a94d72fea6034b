/**
 * The generation key (`StorageAdapter.generation`) that attachment writes count up: the
 * composition root gives it to the store. Every other key is a piece type's name; the
 * parentheses keep this one apart from all of them.
 */
export const attachmentsGenerationKey = '(attachments)';
