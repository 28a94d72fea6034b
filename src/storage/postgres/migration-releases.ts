/** Releases (`ReleaseStore`): drafts of any types published together, now or when due. */
export const releasesMigration = `
  CREATE TABLE releases (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    publish_at TEXT,
    state TEXT NOT NULL,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    published_at TEXT,
    published_by TEXT,
    failure TEXT
  );
  CREATE INDEX releases_created ON releases (created_at, id);
  CREATE INDEX releases_due ON releases (state, publish_at);
  CREATE TABLE release_documents (
    release_id TEXT NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    version_id TEXT NOT NULL,
    type TEXT NOT NULL,
    was_published BOOLEAN,
    PRIMARY KEY (release_id, version_id)
  );
`;
