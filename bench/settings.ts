/** A positive whole number from a `BENCH_*` variable, or an error naming the variable. */
export function positive(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must hold positive integers, not "${raw}"`);
  return value;
}
