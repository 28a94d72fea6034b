import { access, readFile } from 'node:fs/promises';
import { register } from 'node:module';
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError } from '../errors/app-error.js';
import { demoConfig } from './demo-config.js';

const defaultFileName = 'cms.config.mjs';

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function readJson(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(path, `not valid JSON: ${reason(error)}`);
  }
}

// Node runs TypeScript itself only from 22.6 on, behind a flag until 23.6; the server adds no loader of its own.
const typeScriptNeedsNode =
  'a TypeScript configuration needs Node 22.6 or later started with --experimental-strip-types (23.6 or later: no flag); ' +
  'on this Node, write cms.config.mjs with "// @ts-check" and defineConfig from cms-server/config';

/** This package's package.json, whose `name` and `exports` let a file inside it import `cms-server/…`. */
const packageJsonUrl = new URL('../../../package.json', import.meta.url);
let ownPackageResolvable = false;

/** A file outside the package (CMS_CONFIG=/etc/cms/cms.config.mjs) imports `cms-server/config` as one inside it does. */
function resolveOwnPackageFrom(path: string): void {
  const fromRoot = relative(fileURLToPath(new URL('.', packageJsonUrl)), resolve(path));
  if (ownPackageResolvable || (!fromRoot.startsWith('..') && !isAbsolute(fromRoot))) return;
  ownPackageResolvable = true;
  register('./own-package-hooks.js', import.meta.url, { data: { packageUrl: packageJsonUrl.href } });
}

async function importDefault(path: string): Promise<unknown> {
  let loaded: Record<string, unknown>;
  resolveOwnPackageFrom(path);
  try {
    loaded = await import(pathToFileURL(path).href);
  } catch (error) {
    if (/\.m?ts$/.test(path) && (error as { code?: string }).code === 'ERR_UNKNOWN_FILE_EXTENSION') {
      throw new ConfigError(path, typeScriptNeedsNode);
    }
    throw new ConfigError(path, `cannot be loaded: ${reason(error)}`);
  }
  if (loaded.default === undefined) {
    throw new ConfigError(path, 'has no default export');
  }
  return loaded.default;
}

export async function readConfigFile(path: string): Promise<unknown> {
  return path.endsWith('.json') ? readJson(path) : importDefault(path);
}

/** True for the bundled demo configuration, whose API keys are published in the README. */
export function isBundledDemo(raw: unknown): boolean {
  return raw === demoConfig;
}

/**
 * The raw configuration: the file CMS_CONFIG names, else `cms.config.mjs` in the working
 * directory, else the bundled demo; with a description of where it came from, for the start lines.
 */
export async function readConfigSource(configPath: string | undefined, cwd: string): Promise<{ raw: unknown; description: string }> {
  if (configPath !== undefined) {
    if (!(await exists(configPath))) {
      throw new ConfigError('CMS_CONFIG', `no such file: ${configPath}`);
    }
    return { raw: await readConfigFile(configPath), description: `the CMS_CONFIG file ${resolve(cwd, configPath)}` };
  }
  const defaultPath = resolve(cwd, defaultFileName);
  if (await exists(defaultPath)) return { raw: await readConfigFile(defaultPath), description: defaultPath };
  return { raw: demoConfig, description: 'the bundled demo (no CMS_CONFIG, no ./cms.config.mjs)' };
}
