/**
 * Scheduled publishing (issue 25): the due-time index of the schedules a draft shows (its
 * `scheduledPublish` and `scheduledUnpublish`), a row per draft and action, written with the
 * draft. `(status, due_at)` finds the due work; `(type, doc_id, locale)` the list filter
 * `scheduled`. Kept in its own file: the lead numbers it when branches merge.
 */
export const schedulesMigration = `
  CREATE TABLE schedules (
    version_id TEXT NOT NULL,
    action TEXT NOT NULL,
    type TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    locale TEXT NOT NULL,
    due_at INTEGER NOT NULL,
    scheduled_by TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    lease_until INTEGER NOT NULL DEFAULT 0,
    lease_token TEXT,
    PRIMARY KEY (version_id, action)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX schedules_due ON schedules (status, due_at);
  CREATE INDEX schedules_document ON schedules (type, doc_id, locale, status);
  `;
