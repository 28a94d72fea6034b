/**
 * The audit trail (content/audit): one row per record, appended in the transaction of the change
 * it tells of; `seq` is the order of appending (newest first is `seq DESC`). An index per filter
 * of the admin's list (actor by id or username, type, action, time), each ending in seq so a
 * filtered page reads in order; `at` also serves pruning by age.
 */
export const auditMigration = `
  CREATE TABLE audit_records (
    seq bigserial PRIMARY KEY,
    id text NOT NULL UNIQUE,
    at text COLLATE "C" NOT NULL,
    actor_kind text NOT NULL,
    actor_id text COLLATE "C",
    actor_username text,
    actor_title text,
    actor_role text,
    address text,
    request_id text,
    action text COLLATE "C" NOT NULL,
    type text COLLATE "C",
    ids text NOT NULL,
    detail text
  );
  CREATE INDEX audit_records_actor_id ON audit_records (actor_id, seq) WHERE actor_id IS NOT NULL;
  CREATE INDEX audit_records_actor_username ON audit_records (actor_username, seq) WHERE actor_username IS NOT NULL;
  CREATE INDEX audit_records_type ON audit_records (type, seq) WHERE type IS NOT NULL;
  CREATE INDEX audit_records_action ON audit_records (action, seq);
  CREATE INDEX audit_records_at ON audit_records (at);
`;
