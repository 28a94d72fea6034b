/** Who has which document open (storage/interface/presence.ts): one row per tab, until it expires. */
export const presenceMigration = `
  CREATE TABLE presence (
    user_id text NOT NULL,
    tab_id text NOT NULL,
    type text NOT NULL,
    doc_id text NOT NULL,
    locale text NOT NULL,
    title text NOT NULL,
    state text NOT NULL,
    since bigint NOT NULL,
    expires_at bigint NOT NULL,
    PRIMARY KEY (user_id, tab_id)
  );
  CREATE INDEX presence_expires_at ON presence (expires_at);
  CREATE INDEX presence_document ON presence (type, doc_id, locale);
`;
