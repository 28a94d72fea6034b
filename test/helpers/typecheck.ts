import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The package root (tests run from dist/test/helpers). */
export const packageRoot = fileURLToPath(new URL('../../../', import.meta.url));

let declarationsEmitted = false;

/**
 * The client's declarations as `npm run build` writes them (tsconfig.client.json), written again
 * once per test process: a bare `tsc -p tsconfig.json` writes only the JavaScript, and would leave
 * declarations of an older source in place.
 */
function ensureClientDeclarations(): void {
  if (declarationsEmitted) return;
  declarationsEmitted = true;
  const configFile = ts.readConfigFile(join(packageRoot, 'tsconfig.client.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, packageRoot);
  const result = ts.createProgram(parsed.fileNames, parsed.options).emit();
  if (result.emitSkipped) throw new Error('the client declarations could not be emitted');
}

/** What a user's project would compile with: strict, ES modules, the DOM's fetch (no Node.js types). */
const exampleOptions: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: [],
  noUnusedLocals: false,
  // The DOM's and the client's declarations are checked where they are made, not again per example.
  skipLibCheck: true,
};

/** The previous program: the next one reuses its unchanged files (the DOM's declarations above all). */
let previous: ts.Program | undefined;

export interface Diagnostic {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly message: string;
}

/**
 * Compiles the files (name → source) as a project of their own would, except that they sit
 * inside this package (under dist/), so `cms-server/client` resolves through package.json's
 * `exports` to the shipped declarations, as it does in a project that installed the package.
 */
export async function compile(files: Readonly<Record<string, string>>): Promise<Diagnostic[]> {
  ensureClientDeclarations();
  await mkdir(join(packageRoot, 'dist'), { recursive: true });
  const dir = await mkdtemp(join(packageRoot, 'dist', 'typed-example-'));
  try {
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    const program = ts.createProgram(Object.keys(files).map((name) => join(dir, name)), exampleOptions, undefined, previous);
    previous = program;
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const position = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
      return {
        file: diagnostic.file ? diagnostic.file.fileName.slice(dir.length + 1) : '',
        line: position ? position.line + 1 : 0,
        message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
      };
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const expectError = '// @ts-expect-error';

/** The 1-based lines that follow a `// @ts-expect-error` comment. */
export function expectedErrorLines(source: string): number[] {
  return source
    .split('\n')
    .flatMap((line, index) => (line.trim().startsWith(expectError) ? [index + 2] : []));
}

/** The source with its `@ts-expect-error` comments disarmed, to see which lines really fail. */
export function withoutExpectations(source: string): string {
  return source.split(expectError).join('// expected error:');
}
