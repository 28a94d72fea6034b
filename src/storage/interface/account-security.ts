/**
 * What protects an account besides its password: its TOTP secret, and the one-time codes made
 * for it (recovery codes, password reset tokens, the short-lived tokens that let a user of a role
 * that must use TOTP set it up). Codes are kept only as digests: the code itself is shown once.
 */
export interface StoredTotp {
  readonly userId: string;
  /** Base32, as authenticator apps take it. */
  readonly secret: string;
  /** ISO 8601; null while set up but not yet confirmed with a code. */
  readonly enabledAt: string | null;
  /** The last step whose code was taken (a code works once); -1 before any. */
  readonly lastStep: number;
}

export type AccountCodePurpose = 'recovery' | 'reset' | 'totp-setup';

export interface StoredAccountCode {
  /** SHA-256 of the code, base64url; unique across users and purposes. */
  readonly digest: string;
  readonly userId: string;
  readonly purpose: AccountCodePurpose;
  readonly createdAt: string;
  /** ISO 8601; null: never expires (recovery codes). */
  readonly expiresAt: string | null;
  /** ISO 8601 once taken; a taken code never works again. */
  readonly usedAt: string | null;
}

export interface AccountSecurityStore {
  getTotp(userId: string): Promise<StoredTotp | null>;
  putTotp(totp: StoredTotp): Promise<void>;
  /**
   * Moves `lastStep` up to `step` when it is below: true when it did, false when a code of that
   * step (or a later one) was taken first, by this request's twin or another process.
   */
  advanceTotpStep(userId: string, step: number): Promise<boolean>;
  removeTotp(userId: string): Promise<void>;
  insertCode(code: StoredAccountCode): Promise<void>;
  findCode(digest: string): Promise<StoredAccountCode | null>;
  /** Marks a code taken at `now` when it is neither taken nor expired; true when this call took it. */
  takeCode(digest: string, now: string): Promise<boolean>;
  /** Gives a taken code back (the change it was taken for was refused after all). */
  releaseCode(digest: string): Promise<void>;
  /** Removes a user's codes of one purpose; returns how many. */
  removeCodes(userId: string, purpose: AccountCodePurpose): Promise<number>;
  /** A user's codes of one purpose not yet taken nor expired at `now`. */
  countLiveCodes(userId: string, purpose: AccountCodePurpose, now: string): Promise<number>;
}
