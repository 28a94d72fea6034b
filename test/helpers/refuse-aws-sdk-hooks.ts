/** Module resolution hooks (see refuse-aws-sdk.ts): every other specifier resolves as usual. */
type Resolve = (specifier: string, context: unknown) => Promise<unknown>;

export async function resolve(specifier: string, context: unknown, next: Resolve): Promise<unknown> {
  if (specifier.startsWith('@aws-sdk/')) throw new Error(`refused: ${specifier}`);
  return next(specifier, context);
}
