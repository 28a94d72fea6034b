/** Who has which document open (storage/interface/presence.ts): one row per tab, until it expires. */
export const presenceMigration = `
  CREATE TABLE presence (
    user_id TEXT NOT NULL,
    tab_id TEXT NOT NULL,
    type TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    locale TEXT NOT NULL,
    title TEXT NOT NULL,
    state TEXT NOT NULL,
    since INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, tab_id)
  ) STRICT;
  CREATE INDEX presence_expires_at ON presence (expires_at);
  CREATE INDEX presence_document ON presence (type, doc_id, locale);
`;
