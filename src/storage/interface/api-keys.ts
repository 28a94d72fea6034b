/**
 * An API key kept in the store (made by `cms apikey create`): its SHA-256 digest, never the key
 * itself, so a copy of the database holds no usable key.
 */
export interface StoredApiKey {
  id: string;
  /** SHA-256 of the key, hex. */
  digest: string;
  role: string;
  label: string;
  /** The key's first characters, to tell keys apart in a list; far too few to guess the rest. */
  hint: string;
  createdAt: string;
  /** When it was last used, kept coarsely (the server writes it at most once a minute); null: never. */
  lastUsedAt: string | null;
}

export interface ApiKeyStore {
  /** Throws ConflictError (data.constraint `id`) when the id or the digest is taken. */
  insert(key: StoredApiKey): Promise<void>;
  /** The key with this digest, by its primary key: what the server asks for a key it does not know. */
  findByDigest(digest: string): Promise<StoredApiKey | null>;
  /** Every key, oldest first. */
  list(): Promise<StoredApiKey[]>;
  /** Removes the key; true when it existed. */
  remove(id: string): Promise<boolean>;
  /** Records a use at `usedAt` (ISO time), unless a later one is recorded already. */
  markUsed(id: string, usedAt: string): Promise<void>;
}
