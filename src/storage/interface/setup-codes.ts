/**
 * The digests of the first-run setup codes the processes of a store made and logged: every
 * process accepts every code any of them logged, until the first admin exists.
 */
export interface SetupCodeStore {
  /** Keeps the digest of a code a process made and logged. */
  add(digest: string): Promise<void>;
  /** Whether any code is kept. */
  any(): Promise<boolean>;
  /** Removes the code with this digest; true when it was kept (then only this caller got it). */
  take(digest: string): Promise<boolean>;
}
