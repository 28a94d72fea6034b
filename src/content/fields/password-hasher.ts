/** What content needs of password hashing; the implementation lives in `auth/` and is wired in `app.ts`. */
export interface PasswordHasher {
  /** A self-describing hash of `plain`: the function's parameters and salt are part of it. */
  hash(plain: string): Promise<string>;
}

/** What a password field reads while it converts: the rules, and the hashes made for this write. */
export interface PasswordLookup {
  /** The shortest password accepted (`limits.passwordMinLength`). */
  readonly minLength: number;
  /** The hash of `plain` made for this write, or undefined when it is not made yet. */
  hashOf(plain: string): string | undefined;
}

/** Ends a write's transaction whose conversion met passwords that are not hashed yet. */
export class PasswordsToHash extends Error {
  constructor() {
    super('Passwords to hash before the write');
  }
}

/**
 * The password hashes of one write. Hashing is slow on purpose, so it never runs inside the
 * write's transaction, which would hold the store's write lock all that time: a conversion asks
 * for hashes here, those not made yet are noted, the transaction ends with PasswordsToHash,
 * `hashPending` makes them outside, and the write runs again and finds them.
 */
export class WritePasswords implements PasswordLookup {
  readonly minLength: number;
  readonly #hashes = new Map<string, string>();
  readonly #pending = new Set<string>();

  constructor(minLength: number) {
    this.minLength = minLength;
  }

  hashOf(plain: string): string | undefined {
    const hash = this.#hashes.get(plain);
    if (hash === undefined) this.#pending.add(plain);
    return hash;
  }

  /** Throws PasswordsToHash when a conversion asked for a hash that is not made yet. */
  throwIfPending(): void {
    if (this.#pending.size > 0) throw new PasswordsToHash();
  }

  async hashPending(hasher: PasswordHasher): Promise<void> {
    for (const plain of this.#pending) this.#hashes.set(plain, await hasher.hash(plain));
    this.#pending.clear();
  }
}
