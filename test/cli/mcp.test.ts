import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { keys, testConfig } from '../helpers/test-app.js';
import { newCliStore, repositoryRoot, type CliStore } from '../helpers/cli-store.js';
import { skipWithoutPostgres } from '../helpers/postgres.js';
import { createStorage } from '../../src/storage/create-storage.js';
import { attachmentsGenerationKey } from '../../src/content/generation-keys.js';

/** `cms mcp`: the MCP server on stdin and stdout, spoken to by the SDK's own client as an agent starts it. */

const cmsBin = join(repositoryRoot, 'bin', 'cms.js');

async function stdioClient(store: CliStore, env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cmsBin, 'mcp'],
    env: { PATH: process.env.PATH ?? '', ...store.env, ...env },
    cwd: repositoryRoot,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'cms-test', version: '1' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; value: any }> {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, value: result.structuredContent };
}

function describeStdio(database: 'sqlite' | 'postgres', skip: false | string): void {
  describe(`cms mcp on ${database}`, { skip }, () => {
    let store: CliStore;
    before(async () => {
      store = await newCliStore(testConfig(), database);
    });
    after(async () => {
      await store?.remove();
    });

    it('refuses to start without a key, or with a wrong one, printing nothing on stdout', async () => {
      const none = await store.cms(['mcp']);
      assert.equal(none.code, 1, none.stderr);
      assert.equal(none.stdout, '');
      assert.match(none.stderr, /--api-key <key>, or CMS_API_KEY/);
      const wrong = await store.cms(['mcp', '--api-key', 'not-a-key-of-this-server']);
      assert.equal(wrong.code, 1, wrong.stderr);
      assert.equal(wrong.stdout, '');
      assert.match(wrong.stderr, /invalid api key/);
    });

    it('acts as the key given: an editor drafts and publishes, a contributor is refused as REST refuses', async () => {
      const editor = await stdioClient(store, { CMS_API_KEY: keys.editor });
      const contributor = await stdioClient(store, { CMS_API_KEY: keys.contributor });
      try {
        const { tools } = await editor.client.listTools();
        assert.ok(tools.some((tool) => tool.name === 'createDraft'));
        const draft = await call(editor.client, 'createDraft', { type: 'article', fields: { title: 'Over stdio' } });
        assert.equal(draft.isError, false, JSON.stringify(draft.value));
        assert.equal(draft.value.cmsMode, 'draft');

        const refused = await call(contributor.client, 'publish', { type: 'article', id: draft.value._id });
        assert.equal(refused.isError, true);
        assert.equal(refused.value.status, 403);
        assert.equal(refused.value.error.name, 'forbidden');

        const published = await call(editor.client, 'publish', { type: 'article', id: draft.value._id });
        assert.equal(published.value.cmsMode, 'published');
        const found = await call(contributor.client, 'findDocuments', { type: 'article', search: 'stdio' });
        assert.deepEqual(found.value.results.map((doc: any) => doc.cmsDocId), [draft.value.cmsDocId]);
        const schema = await editor.client.readResource({ uri: 'cms://schema' });
        assert.ok(JSON.parse((schema.contents[0] as { text: string }).text).types.article);
      } finally {
        await editor.client.close();
        await contributor.client.close();
      }
      assert.equal(editor.stderr(), '', 'nothing went wrong');

      const storage = await createStorage(store.env.CMS_DATABASE_URL, { attachmentsGenerationKey });
      try {
        const records = await storage.audit.list({ action: 'mcp.publish' }, { offset: 0, limit: 10 });
        assert.deepEqual(records.map((record) => [record.actor.role, record.detail]).sort(), [
          ['contributor', { status: 403, error: 'forbidden' }],
          ['editor', { status: 200 }],
        ]);
        assert.ok(records.every((record) => record.address === null), 'no request, no address');
      } finally {
        await storage.close();
      }
    });

    it('takes the key as --api-key too', async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cmsBin, 'mcp', '--api-key', keys.guest],
        env: { PATH: process.env.PATH ?? '', ...store.env },
        cwd: repositoryRoot,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'cms-test', version: '1' });
      await client.connect(transport);
      try {
        const refused = await call(client, 'createDraft', { type: 'article', fields: { title: 'A guest' } });
        assert.equal(refused.value.status, 403);
      } finally {
        await client.close();
      }
    });
  });
}

describeStdio('sqlite', false);
describeStdio('postgres', skipWithoutPostgres);
