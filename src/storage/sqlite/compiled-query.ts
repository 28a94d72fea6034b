/** One parameterized statement: `sql` never contains a value, only placeholders. */
export interface CompiledQuery {
  readonly sql: string;
  readonly params: readonly unknown[];
}
