import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { keys, signedInUser, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

/**
 * The MCP server over real HTTP with the SDK's own client, per role: each tool answers what its
 * REST route answers, a refusal carries the route's status and error body, every call is audited.
 */

const mcpUrl = '/api/v1/@cms/mcp';

type Role = keyof typeof keys;

async function mcpClient(port: number, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'cms-test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}${mcpUrl}`), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

const keyHeaders = (role: Role) => ({ authorization: `ApiKey ${keys[role]}` });

/** A tool's answer: the value, or for a refusal `{ status, error }`. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; value: any }> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[])[0]!.text;
  assert.deepEqual(JSON.parse(text), result.structuredContent, 'the text and the structured content say the same');
  return { isError: result.isError === true, value: result.structuredContent };
}

async function refusal(client: Client, name: string, args: Record<string, unknown>): Promise<{ status: number; error: any }> {
  const answer = await call(client, name, args);
  assert.equal(answer.isError, true, JSON.stringify(answer.value));
  return answer.value;
}

async function protocolError(work: Promise<unknown>, code: number): Promise<McpError> {
  const error = await work.then(
    () => assert.fail('expected a protocol error'),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof McpError, String(error));
  assert.equal(error.code, code, error.message);
  return error;
}

describe('the MCP server over Streamable HTTP', () => {
  let t: TestApp;
  let port: number;
  const clients: Partial<Record<Role, Client>> = {};
  const as = (role: Role) => clients[role]!;

  before(async () => {
    t = await startTestApp();
    port = await t.listen();
    for (const role of Object.keys(keys) as Role[]) clients[role] = await mcpClient(port, keyHeaders(role));
  });
  after(async () => {
    for (const client of Object.values(clients)) await client.close();
    await t.close();
  });

  it('refuses anonymous callers with 401 in the error shape, and GET and DELETE with 405', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const headers = { accept: 'application/json, text/event-stream' };
    const anonymous = await t.request('POST', mcpUrl, { key: null, body, headers });
    assert.equal(anonymous.status, 401, anonymous.text);
    assert.equal(anonymous.body.name, 'unauthorized');
    assert.match(anonymous.body.message, /mcp\.anonymous/);
    await assert.rejects(mcpClient(port, {}));
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await t.request(method, mcpUrl);
      assert.equal(res.status, 405, res.text);
      assert.equal(res.headers.allow, 'POST');
      assert.equal(res.body.name, 'invalid');
    }
  });

  it('lists the tools and the resources', async () => {
    const { tools } = await as('guest').listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['describeTypes', 'findDocuments', 'getDocument', 'createDraft', 'patchDraft', 'publish', 'schedule', 'readHistory'],
    );
    for (const tool of tools) assert.equal(tool.inputSchema.type, 'object');
    const { resources } = await as('guest').listResources();
    assert.deepEqual(resources.map((resource) => resource.uri), ['cms://schema']);
    const { resourceTemplates } = await as('guest').listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((template) => template.uriTemplate), ['cms://documents/{type}/{id}{?locale,mode}']);
  });

  it('describes the types each role sees, as the schema route does', async () => {
    for (const role of ['guest', 'editor'] as const) {
      const rest = await t.request('GET', '/api/v1/@cms/schema', { key: role });
      const described = await call(as(role), 'describeTypes', {});
      assert.deepEqual(described.value, rest.body);
      const one = await call(as(role), 'describeTypes', { type: 'article' });
      assert.deepEqual(Object.keys(one.value.types), ['article']);
      assert.deepEqual(one.value.types.article, rest.body.types.article);
    }
  });

  it('lets an editor create a draft, patch it, publish it, find it, read it and its history', async () => {
    const created = await call(as('editor'), 'createDraft', { type: 'article', fields: { title: 'Agent draft', category: 'mcp', priority: 5 } });
    assert.equal(created.isError, false, JSON.stringify(created.value));
    assert.equal(created.value.cmsMode, 'draft');
    const id = created.value._id as string;
    const docId = created.value.cmsDocId as string;
    const published = await t.request('GET', `/api/v1/article/${docId}`, { key: 'editor' });
    assert.equal(published.status, 404, 'a draft only: nothing published');

    const patched = await call(as('editor'), 'patchDraft', { type: 'article', id: docId, patch: { title: 'Agent draft, patched' } });
    assert.equal(patched.value.title, 'Agent draft, patched');
    assert.equal(patched.value.cmsMode, 'draft');

    const publishedNow = await call(as('editor'), 'publish', { type: 'article', id });
    assert.equal(publishedNow.value.cmsMode, 'published');
    const read = await call(as('editor'), 'getDocument', { type: 'article', id: docId });
    const rest = await t.request('GET', `/api/v1/article/${docId}`, { key: 'editor' });
    assert.deepEqual(read.value, rest.body);

    const found = await call(as('editor'), 'findDocuments', { type: 'article', filters: { category: 'mcp' }, sort: { title: 1 }, perPage: 5 });
    const listed = await t.request('GET', '/api/v1/article?category=mcp&sort[title]=1&perPage=5', { key: 'editor' });
    assert.deepEqual(found.value, listed.body);
    assert.deepEqual(found.value.results.map((doc: any) => doc.cmsDocId), [docId]);
    const searched = await call(as('editor'), 'findDocuments', { type: 'article', search: 'patched', mode: 'draft' });
    assert.deepEqual(searched.value.results.map((doc: any) => doc._id), [id]);

    const history = await call(as('editor'), 'readHistory', { type: 'article', id: docId, perPage: 10 });
    const restHistory = await t.request('GET', `/api/v1/article/${docId}/history?perPage=10`, { key: 'editor' });
    assert.deepEqual(history.value, restHistory.body);
    assert.ok(history.value.results.length >= 2);

    const publishAt = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = await call(as('editor'), 'schedule', { type: 'article', id: docId, publishAt });
    assert.equal(scheduled.value.scheduledPublish.at, publishAt);
    assert.equal(scheduled.value.scheduledPublish.status, 'pending');
    const cancelled = await call(as('editor'), 'schedule', { type: 'article', id: docId, publishAt: null });
    assert.equal(cancelled.value.scheduledPublish ?? null, null);
  });

  it('publishes with `publish: true` only for a caller who may publish', async () => {
    const both = await call(as('editor'), 'createDraft', { type: 'article', fields: { title: 'Straight out' }, publish: true });
    assert.equal(both.value.cmsMode, 'published');
    const draft = await call(as('contributor'), 'createDraft', { type: 'article', fields: { title: 'By a contributor' } });
    assert.equal(draft.isError, false, JSON.stringify(draft.value));

    const rest = await t.request('POST', '/api/v1/article', { key: 'contributor', body: { title: 'By a contributor' } });
    assert.equal(rest.status, 403, rest.text);
    assert.deepEqual(await refusal(as('contributor'), 'createDraft', { type: 'article', fields: { title: 'By a contributor' }, publish: true }), {
      status: 403,
      error: rest.body,
    });

    const restPublish = await t.request('POST', `/api/v1/article/${draft.value._id}/publish`, { key: 'contributor' });
    assert.equal(restPublish.status, 403, restPublish.text);
    assert.deepEqual(await refusal(as('contributor'), 'publish', { type: 'article', id: draft.value._id }), { status: 403, error: restPublish.body });
    const restPatch = await t.request('PATCH', `/api/v1/article/${draft.value._id}`, { key: 'contributor', body: { title: 'x', _publish: true } });
    assert.equal(restPatch.status, 403, restPatch.text);
    assert.deepEqual(await refusal(as('contributor'), 'patchDraft', { type: 'article', id: draft.value._id, patch: { title: 'x' }, publish: true }), {
      status: 403,
      error: restPatch.body,
    });
    const unchanged = await t.request('GET', `/api/v1/article/${draft.value._id}`, { key: 'editor' });
    assert.equal(unchanged.body.title, 'By a contributor', 'the refused patch wrote nothing');
    const smuggled = await call(as('contributor'), 'patchDraft', { type: 'article', id: draft.value._id, patch: { title: 'Still a draft', _publish: true } });
    assert.equal(smuggled.isError, false, 'a `_publish` among the fields is dropped, not refused');
    assert.equal(smuggled.value.cmsMode, 'draft');
    const notPublished = await t.request('GET', `/api/v1/article/${draft.value.cmsDocId}`, { key: 'editor' });
    assert.equal(notPublished.status, 404, 'and nothing is published');

    const restGuest = await t.request('POST', '/api/v1/article?cmsMode=draft', { key: 'guest', body: { title: 'By a guest' } });
    assert.equal(restGuest.status, 403, restGuest.text);
    assert.deepEqual(await refusal(as('guest'), 'createDraft', { type: 'article', fields: { title: 'By a guest' } }), { status: 403, error: restGuest.body });
    const restSchedule = await t.request('POST', `/api/v1/article/${draft.value._id}/schedule`, { key: 'contributor', body: { publishAt: null } });
    assert.deepEqual(await refusal(as('contributor'), 'schedule', { type: 'article', id: draft.value._id, publishAt: null }), {
      status: restSchedule.status,
      error: restSchedule.body,
    });

    const admin = await call(as('admin'), 'publish', { type: 'article', id: draft.value._id });
    assert.equal(admin.value.cmsMode, 'published');
  });

  it('answers the REST errors: an unknown type, a refused value, a missing document', async () => {
    const unknown = await t.request('GET', '/api/v1/nosuch', { key: 'editor' });
    assert.equal(unknown.status, 404);
    assert.deepEqual(await refusal(as('editor'), 'findDocuments', { type: 'nosuch' }), { status: 404, error: unknown.body });
    assert.deepEqual(await refusal(as('editor'), 'describeTypes', { type: 'nosuch' }), { status: 404, error: unknown.body });

    const invalid = await t.request('POST', '/api/v1/article?cmsMode=draft', { key: 'editor', body: { title: 'Too high', priority: 500 } });
    assert.equal(invalid.status, 400, invalid.text);
    assert.deepEqual(await refusal(as('editor'), 'createDraft', { type: 'article', fields: { title: 'Too high', priority: 500 } }), { status: 400, error: invalid.body });

    const badSort = await t.request('GET', '/api/v1/article?sort[title]=2', { key: 'editor' });
    assert.equal(badSort.status, 400, badSort.text);
    const refusedSort = await refusal(as('editor'), 'findDocuments', { type: 'article', filters: { sort: { title: 2 } } });
    assert.deepEqual(refusedSort, { status: 400, error: badSort.body });
    // The JSON body parser of every route refuses the whole request, before the MCP server reads it.
    const prototype = as('editor').callTool({ name: 'findDocuments', arguments: { type: 'article', filters: JSON.parse('{"__proto__":{"x":"1"}}') } });
    await assert.rejects(prototype, (error: { code?: number; message: string }) => error.code === 400 && /__proto__/.test(error.message));

    const missing = await t.request('GET', '/api/v1/article/nosuchdocument', { key: 'editor' });
    assert.equal(missing.status, 404);
    assert.deepEqual(await refusal(as('editor'), 'getDocument', { type: 'article', id: 'nosuchdocument' }), { status: 404, error: missing.body });
    const drafts = await t.request('GET', '/api/v1/note?cmsMode=draft', { key: 'guest' });
    assert.deepEqual(await refusal(as('guest'), 'findDocuments', { type: 'note', mode: 'draft' }), { status: drafts.status, error: drafts.body });
  });

  it('answers a protocol error for an unknown tool and for arguments its schema refuses', async () => {
    await protocolError(as('editor').callTool({ name: 'deleteEverything', arguments: {} }), ErrorCode.InvalidParams);
    await protocolError(as('editor').callTool({ name: 'getDocument', arguments: { type: 'article' } }), ErrorCode.InvalidParams);
    await protocolError(as('editor').callTool({ name: 'findDocuments', arguments: { type: 'article', perPage: 1000 } }), ErrorCode.InvalidParams);
    await protocolError(as('editor').callTool({ name: 'createDraft', arguments: { type: 'article', fields: {}, extra: 1 } }), ErrorCode.InvalidParams);
  });

  it('reads the schema and documents as resources, with the caller\'s rights', async () => {
    const schema = await as('guest').readResource({ uri: 'cms://schema' });
    const rest = await t.request('GET', '/api/v1/@cms/schema', { key: 'guest' });
    assert.deepEqual(JSON.parse((schema.contents[0] as { text: string }).text), rest.body);

    const created = await call(as('editor'), 'createDraft', { type: 'article', fields: { title: 'As a resource' } });
    const uri = `cms://documents/article/${created.value.cmsDocId}?mode=draft`;
    const read = await as('editor').readResource({ uri });
    const restDraft = await t.request('GET', `/api/v1/article/${created.value.cmsDocId}?cmsMode=draft`, { key: 'editor' });
    assert.deepEqual(JSON.parse((read.contents[0] as { text: string }).text), restDraft.body);
    const user = await as('admin').readResource({ uri: `cms://documents/${encodeURIComponent('@cms/user')}/nosuchuser` }).catch((error: unknown) => error);
    assert.ok(user instanceof McpError && user.code === -32002, String(user));
    assert.deepEqual((user.data as any).status, 404);

    const restGuest = await t.request('GET', `/api/v1/article/${created.value.cmsDocId}?cmsMode=draft`, { key: 'guest' });
    const refused = await protocolError(as('guest').readResource({ uri }), ErrorCode.InvalidRequest);
    assert.deepEqual(refused.data, { status: restGuest.status, error: restGuest.body });
    await protocolError(as('guest').readResource({ uri: 'https://example.com/' }), ErrorCode.InvalidParams);
  });

  it('acts as a bearer token\'s user', async () => {
    const jane = await signedInUser(t, 'jane', 'editor');
    const client = await mcpClient(port, jane.headers);
    try {
      const created = await call(client, 'createDraft', { type: 'article', fields: { title: 'By Jane' } });
      assert.equal(created.value.updatedBy._id, jane.id);
    } finally {
      await client.close();
    }
  });

  it('audits every call with the caller, the tool and the target, beside the write\'s own record', async () => {
    const created = await call(as('editor'), 'createDraft', { type: 'article', fields: { title: 'Audited' } });
    await refusal(as('guest'), 'publish', { type: 'article', id: created.value._id });
    const res = await t.request('GET', '/api/v1/@cms/audit?perPage=100&type=article');
    assert.equal(res.status, 200, res.text);
    const records = res.body.results as any[];
    const recorded = records.find((record) => record.action === 'mcp.createDraft' && record.ids.includes(created.value._id));
    assert.ok(recorded, 'the call is recorded');
    assert.equal(recorded.actor.role, 'editor');
    assert.deepEqual(recorded.detail, { status: 200 });
    assert.ok(records.some((record) => record.action === 'document.insert' && record.ids.includes(created.value._id)), 'and the insert itself');
    const refused = records.find((record) => record.action === 'mcp.publish' && record.actor.role === 'guest');
    assert.deepEqual(refused?.detail, { status: 403, error: 'forbidden' });
    assert.deepEqual(refused?.ids, [created.value._id]);
    const reads = await t.request('GET', '/api/v1/@cms/audit?perPage=100&action=mcp.readResource');
    assert.ok(reads.body.results.length > 0, 'resource reads are recorded too');
  });
});

describe('the MCP server with mcp.anonymous', () => {
  let t: TestApp;
  let client: Client;
  before(async () => {
    t = await startTestApp({ ...testConfig(), mcp: { anonymous: true } });
    await t.request('POST', '/api/v1/article', { body: { title: 'Public one', category: 'open' } });
    client = await mcpClient(await t.listen(), {});
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  it('serves anonymous callers what the REST interface shows them, and refuses them what it refuses', async () => {
    const found = await call(client, 'findDocuments', { type: 'article' });
    const rest = await t.request('GET', '/api/v1/article', { key: null });
    assert.deepEqual(found.value, rest.body);
    assert.deepEqual(Object.keys(found.value.results[0]).sort(), Object.keys(rest.body.results[0]).sort());
    const restWrite = await t.request('POST', '/api/v1/article?cmsMode=draft', { key: null, body: { title: 'Anonymous' } });
    assert.deepEqual(await refusal(client, 'createDraft', { type: 'article', fields: { title: 'Anonymous' } }), { status: restWrite.status, error: restWrite.body });
  });
});
