import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { loadAppConfig } from '../../src/load-app-config.js';
import { buildApp } from '../../src/app.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * A directory inside the package, so `cms-server/config` resolves as in a project that installed
 * it (a package may import itself by name through its `exports`): the built file and, for
 * TypeScript, the declarations `npm run build` writes to dist/types.
 */
async function withPackageDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(root, 'dist', 'define-config-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const sampleTs = `
import { defineConfig } from 'cms-server/config';

export default defineConfig({
  baseUrl: 'https://cms.example.com',
  locales: { en: { label: 'English' }, fr: { label: 'Français', prefix: '/fr' } },
  apiKeys: { 'a-long-enough-admin-key': { role: 'admin' } },
  limits: { jsonDepth: 32, uploadsInFlight: 4 },
  s3: { bucket: 'my-bucket', region: 'eu-west-1' },
  trustProxy: '10.0.0.0/8',
  modules: {
    article: {
      extend: '@cms/piece-type',
      options: { label: 'Article', perPage: 20, publicApiProjection: { title: 1, slug: 1 }, pagePath: '/articles', editRole: 'editor' },
      fields: {
        add: {
          tags: { type: 'checkboxes', choices: [{ label: 'News', value: 'news' }] },
          color: { type: 'select', choices: [{ label: 'Red', value: 'red' }], def: 'red' },
          priority: { type: 'integer', min: 0, max: 10 },
          body: { type: 'area', options: { widgets: { '@cms/rich-text': { toolbar: ['bold'] }, '@cms/image': {} } } },
          links: { type: 'array', fields: { add: { url: { type: 'url', required: true } } } },
          _author: { type: 'relationship', withType: '@cms/user', max: 1 },
          photo: { type: 'attachment', fileGroup: 'images' },
        },
        remove: ['visibility'],
      },
    },
  },
  widgets: { quote: { fields: { add: { text: { type: 'string', textarea: true } } } } },
});

// @ts-expect-error a string field has no choices
defineConfig({ modules: { a: { fields: { add: { x: { type: 'string', choices: [] } } } } } });
// @ts-expect-error a select needs its choices
defineConfig({ modules: { a: { fields: { add: { x: { type: 'select' } } } } } });
// @ts-expect-error there is no field type "text"
defineConfig({ modules: { a: { fields: { add: { x: { type: 'text' } } } } } });
// @ts-expect-error perPage is a number
defineConfig({ modules: { a: { options: { perPage: '10' } } } });
// @ts-expect-error the key is baseUrl
defineConfig({ baseURL: 'https://cms.example.com' });
// @ts-expect-error a role is guest, contributor, editor or admin
defineConfig({ apiKeys: { 'a-long-enough-admin-key': { role: 'root' } } });
// @ts-expect-error limits are numbers
defineConfig({ limits: { jsonDepth: 'deep' } });
`;

test('defineConfig types the whole configuration file: a full sample compiles, every wrong key or value is an error', async () => {
  await withPackageDir(async (dir) => {
    const file = join(dir, 'cms.config.ts');
    await writeFile(file, sampleTs);
    // The same checks in an editor for a plain JavaScript file that says `// @ts-check`.
    const javascript = join(dir, 'cms.config.mjs');
    await writeFile(
      javascript,
      [
        '// @ts-check',
        "import { defineConfig } from 'cms-server/config';",
        "export default defineConfig({ modules: { a: { extend: '@cms/piece-type', fields: { add: { n: { type: 'integer', min: 0 } } } } } });",
        '// @ts-expect-error min is a number',
        "defineConfig({ modules: { a: { fields: { add: { n: { type: 'integer', min: 'zero' } } } } } });",
      ].join('\n'),
    );
    const program = ts.createProgram([file, javascript], {
      allowJs: true,
      checkJs: true,
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      skipLibCheck: true,
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    // An unused `@ts-expect-error` is itself an error: zero diagnostics means every wrong line was refused.
    assert.deepEqual(diagnostics, []);
  });
});

test('a cms.config.mjs written with defineConfig loads and serves', async () => {
  await withPackageDir(async (dir) => {
    const file = join(dir, 'cms.config.mjs');
    await writeFile(
      file,
      [
        '// @ts-check',
        "import { defineConfig } from 'cms-server/config';",
        'export default defineConfig({',
        "  apiKeys: { 'a-long-enough-admin-key': { role: 'admin' } },",
        "  modules: { recipe: { extend: '@cms/piece-type', options: { label: 'Recipe', publicApiProjection: { title: 1 } }, fields: { add: { serves: { type: 'integer', min: 1 } } } } },",
        '});',
      ].join('\n'),
    );
    const config = await loadAppConfig({ env: { CMS_CONFIG: file, CMS_DATA_DIR: dir, CMS_LOG_LEVEL: 'silent' }, cwd: dir });
    assert.equal(config.configSource, `the CMS_CONFIG file ${file}`);
    const app = await buildApp(config, { adminDir: dir });
    try {
      const headers = { authorization: 'ApiKey a-long-enough-admin-key', 'content-type': 'application/json' };
      const created = await app.inject({ method: 'POST', url: '/api/v1/recipe', headers, payload: JSON.stringify({ title: 'Soup', serves: 4 }) });
      assert.equal(created.statusCode, 200, created.body);
      const list = await app.inject({ method: 'GET', url: '/api/v1/recipe' });
      assert.equal(list.statusCode, 200);
      assert.deepEqual(
        list.json().results.map((doc: { title: string }) => doc.title),
        ['Soup'],
      );
    } finally {
      await app.close();
    }
  });
});

test('a cms.config.ts loads where Node strips types, and elsewhere says what to do instead', async () => {
  await withPackageDir(async (dir) => {
    const file = join(dir, 'site.ts');
    await writeFile(file, "const modules: Record<string, unknown> = {};\nexport default { baseUrl: 'https://ts.test', modules };\n");
    const load = loadAppConfig({ env: { CMS_CONFIG: file, CMS_DATA_DIR: dir }, cwd: dir });
    if ((process.features as { typescript?: unknown }).typescript) {
      assert.equal((await load).baseUrl, 'https://ts.test');
    } else {
      await assert.rejects(load, /site\.ts: a TypeScript configuration needs Node 22\.6 or later .*write cms\.config\.mjs with "\/\/ @ts-check"/);
    }
  });
});

test('the documented tsc check works as written: a good cms.config.mjs passes, a wrong value fails', async () => {
  const docs = await readFile(join(root, 'docs', 'reference', 'configuration.md'), 'utf8');
  const command = /`(npx tsc [^`]*cms\.config\.mjs)`/.exec(docs)?.[1];
  assert.ok(command, 'configuration.md documents a tsc check of cms.config.mjs');
  const parsed = ts.parseCommandLine(command.split(/\s+/).slice(2));
  assert.deepEqual(parsed.errors, [], command);
  assert.deepEqual(parsed.fileNames, ['cms.config.mjs']);
  await withPackageDir(async (dir) => {
    const check = async (min: string) => {
      const file = join(dir, 'cms.config.mjs');
      await writeFile(file, `// @ts-check\nimport { defineConfig } from 'cms-server/config';\nexport default defineConfig({ modules: { a: { extend: '@cms/piece-type', fields: { add: { n: { type: 'integer', min: ${min} } } } } } });\n`);
      // Library declarations are checked where they are made: skipping them changes nothing of this file's errors.
      const program = ts.createProgram([file], { ...parsed.options, skipLibCheck: true, types: [] });
      return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    };
    assert.deepEqual(await check('1'), []);
    assert.match((await check("'one'")).join('\n'), /not assignable to type 'number'/);
  });
});

test('a configuration kept outside the package (CMS_CONFIG=/etc/cms/cms.config.mjs) imports cms-server/config', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cms-etc-'));
  try {
    const file = join(dir, 'cms.config.mjs');
    await writeFile(
      file,
      "import { defineConfig } from 'cms-server/config';\nexport default defineConfig({ modules: { recipe: { extend: '@cms/piece-type', options: { label: 'Recipe' } } } });\n",
    );
    const config = await loadAppConfig({ env: { CMS_CONFIG: file, CMS_DATA_DIR: dir, CMS_LOG_LEVEL: 'silent' }, cwd: dir });
    assert.ok(config.pieceTypes.has('recipe'), 'the type the file defines is served');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
