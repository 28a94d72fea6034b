/**
 * Issue 33: a scheduled publish holds for the draft as it was scheduled. `unreviewed_change`
 * keeps the latest change to the draft since then by someone who may not publish it (null:
 * none), so that the run refuses unreviewed content. Kept in its own file: the lead numbers it
 * when branches merge.
 */
export const scheduleReviewMigration = `
  ALTER TABLE schedules ADD COLUMN unreviewed_change TEXT;
  `;
