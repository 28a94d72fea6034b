/**
 * Preview links (`ShareLinkStore`): several per draft, each with its expiry, out of the draft's
 * data so that making or revoking one writes no version (no cached answer is dropped). Looked up
 * by the digest of their key (a shared read) and by draft (the editor's list, a revoke).
 */
export const shareLinksMigration = `
  CREATE TABLE share_links (
    id TEXT PRIMARY KEY,
    version_id TEXT NOT NULL,
    digest TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    expires_at TEXT
  ) STRICT;
  CREATE INDEX share_links_version ON share_links (version_id, created_at);
`;
