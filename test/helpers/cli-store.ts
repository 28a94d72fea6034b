import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newSchemaDatabase } from './postgres.js';

/** The repository's root, where `npm run cms` runs `node bin/cms.js`. */
export const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const cmsBin = join(repositoryRoot, 'bin', 'cms.js');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A store for the command line and the app to share: a data directory, a configuration file, and a database. */
export interface CliStore {
  /** The environment the CLI runs with (`CMS_DATA_DIR`, `CMS_CONFIG`, `CMS_DATABASE_URL`). */
  readonly env: Record<string, string>;
  /** Runs `node bin/cms.js …` as an operator would; `input` is written to its standard input, then closed. */
  cms(args: readonly string[], input?: string): Promise<CliResult>;
  remove(): Promise<void>;
}

/**
 * A fresh store: a SQLite file in a temporary directory, or with `postgres` a fresh schema of
 * CMS_TEST_POSTGRES_URL (dropped by `remove`). `config` is written as the CLI's CMS_CONFIG.
 */
export async function newCliStore(config: Record<string, unknown>, database: 'sqlite' | 'postgres'): Promise<CliStore> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cms-cli-'));
  const configFile = join(dataDir, 'cms.config.json');
  await writeFile(configFile, JSON.stringify(config));
  const schema = database === 'postgres' ? await newSchemaDatabase() : null;
  const env = {
    CMS_DATA_DIR: dataDir,
    CMS_CONFIG: configFile,
    CMS_LOG_LEVEL: 'silent',
    CMS_DATABASE_URL: schema?.url ?? `sqlite:${join(dataDir, 'cms.sqlite')}`,
  };
  return {
    env,
    cms: (args, input) => runCli(args, { env, input }),
    async remove() {
      await schema?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs the `cms` program with only PATH and `env` in its environment. */
export function runCli(args: readonly string[], options: { env: Record<string, string>; input?: string; cwd?: string }): Promise<CliResult> {
  const child = spawn(process.execPath, [cmsBin, ...args], {
    cwd: options.cwd ?? repositoryRoot,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Whether `script` (util-linux) is there to run the CLI on a pseudo-terminal. */
export function hasScript(): boolean {
  return spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Runs `node bin/cms.js …` on a pseudo-terminal (`script -qec`), answering each prompt in
 * `answers` (a text the output shows, and the line to type) once it shows; resolves with the
 * exit code and everything the terminal showed.
 */
export async function runCliOnTerminal(
  args: readonly string[],
  options: { env: Record<string, string>; answers: readonly { prompt: string; line: string }[] },
): Promise<{ code: number | null; shown: string }> {
  const command = [process.execPath, cmsBin, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: repositoryRoot,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let shown = '';
  const answers = [...options.answers];
  let seen = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    shown += chunk;
    // Each prompt is answered once it shows, after the ones before it.
    while (answers.length > 0) {
      const at = shown.indexOf(answers[0]!.prompt, seen);
      if (at < 0) break;
      seen = at + answers[0]!.prompt.length;
      child.stdin.write(`${answers.shift()!.line}\r`);
    }
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  child.stdin.destroy();
  return { code, shown };
}
