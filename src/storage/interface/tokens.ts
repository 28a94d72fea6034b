export interface BearerToken {
  token: string;
  userId: string;
  expiresAt: string;
}

export interface TokenStore {
  get(token: string): Promise<BearerToken | null>;
  put(token: BearerToken): Promise<void>;
  remove(token: string): Promise<void>;
  removeForUser(userId: string): Promise<void>;
}
