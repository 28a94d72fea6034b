/**
 * Module resolution hooks (node:module `register`) for a configuration file that lives outside
 * this package, such as /etc/cms/cms.config.mjs: its `import … from 'cms-server/config'` finds no
 * `node_modules/cms-server` above it, so a specifier naming this package that fails to resolve is
 * resolved again as if imported from inside the package, where it imports itself by name.
 */

interface ResolveContext {
  readonly parentURL?: string;
  readonly [key: string]: unknown;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<unknown>;

let packageUrl = '';

export function initialize(data: { packageUrl: string }): void {
  packageUrl = data.packageUrl;
}

export async function resolve(specifier: string, context: ResolveContext, nextResolve: NextResolve): Promise<unknown> {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (specifier !== 'cms-server' && !specifier.startsWith('cms-server/')) throw error;
    return nextResolve(specifier, { ...context, parentURL: packageUrl });
  }
}
