/**
 * Scheduled publishing (issue 25): the due-time index of the schedules a draft shows (its
 * `scheduledPublish` and `scheduledUnpublish`), a row per draft and action, written with the
 * draft. `(status, due_at)` finds the due work; `(type, doc_id, locale)` the list filter
 * `scheduled`. Claims are row leases (UPDATE … FOR UPDATE SKIP LOCKED): no session state, so it
 * works behind a pooler in transaction mode. Kept in its own file: the lead numbers it when
 * branches merge.
 */
export const schedulesMigration = `
  CREATE TABLE schedules (
    version_id text COLLATE "C" NOT NULL,
    action text COLLATE "C" NOT NULL,
    type text COLLATE "C" NOT NULL,
    doc_id text COLLATE "C" NOT NULL,
    locale text COLLATE "C" NOT NULL,
    due_at bigint NOT NULL,
    scheduled_by text NOT NULL,
    status text COLLATE "C" NOT NULL DEFAULT 'pending',
    attempts integer NOT NULL DEFAULT 0,
    lease_until bigint NOT NULL DEFAULT 0,
    lease_token text,
    PRIMARY KEY (version_id, action)
  );
  CREATE INDEX schedules_due ON schedules (status, due_at);
  CREATE INDEX schedules_document ON schedules (type, doc_id, locale, status);
  `;
