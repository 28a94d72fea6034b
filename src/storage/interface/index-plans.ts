/**
 * Which index plan each type's stored index (filter values, search texts) was last derived by,
 * as a digest the content layer makes: a type whose plan changed is indexed again.
 */
export interface IndexPlanStore {
  /** The digest of the plan that the type's stored index was last derived by (null: none yet). */
  digestOf(type: string): Promise<string | null>;
  /** Records that the type's stored index now follows the plan with this digest. */
  record(type: string, digest: string): Promise<void>;
}
