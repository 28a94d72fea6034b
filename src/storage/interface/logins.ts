/** Login data of a user, kept apart from the user document so it is never returned. */
export interface UserLogin {
  userId: string;
  username: string;
  email: string | null;
  passwordHash: string;
}

export interface LoginStore {
  get(userId: string): Promise<UserLogin | null>;
  /** Matches the username, or the email. */
  findByName(usernameOrEmail: string): Promise<UserLogin | null>;
  /** Throws ConflictError (data.constraint `username` or `email`) when another user has them. */
  put(login: UserLogin): Promise<void>;
  remove(userId: string): Promise<void>;
  /** Up to `limit` logins whose `userId` sorts after `afterUserId` (all: null), in bytewise `userId` order. */
  loginsAfter(afterUserId: string | null, limit: number): Promise<UserLogin[]>;
}
