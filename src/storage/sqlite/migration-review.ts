/**
 * Review of drafts (`ReviewStore`): the comments on a draft and the approve links made for it,
 * out of the draft's data so that commenting writes no version.
 */
export const reviewMigration = `
  CREATE TABLE review_comments (
    id TEXT PRIMARY KEY,
    version_id TEXT NOT NULL,
    field TEXT,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    resolved INTEGER NOT NULL DEFAULT 0,
    resolved_at TEXT
  ) STRICT;
  CREATE INDEX review_comments_version ON review_comments (version_id, created_at);
  CREATE TABLE review_links (
    digest TEXT PRIMARY KEY,
    version_id TEXT NOT NULL,
    content_digest TEXT NOT NULL,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
  ) STRICT;
  CREATE INDEX review_links_version ON review_links (version_id);
`;
