import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { cheapPasswordHasher, startTestApp, testConfig, type TestApp } from '../helpers/test-app.js';
import { hasScript, newCliStore, runCliOnTerminal, type CliStore } from '../helpers/cli-store.js';
import { skipWithoutPostgres } from '../helpers/postgres.js';

const loginUrl = '/api/v1/@cms/login/login';
const storedKey = /^cms_[A-Za-z0-9_-]{43}$/;
const invalidKey = {
  name: 'forbidden',
  message: 'invalid api key: no API key matches the one sent (Authorization: ApiKey <key> or ?apikey=<key>); send a valid key, or none to read public content',
  data: {},
};

/** The app on the CLI's store, with a request helper for a stored key or a bearer token. */
async function startAppOn(store: CliStore): Promise<TestApp> {
  return startTestApp(testConfig(), { CMS_DATABASE_URL: store.env.CMS_DATABASE_URL! }, { passwordHasher: cheapPasswordHasher() });
}

const withKey = (key: string) => ({ key: null, headers: { authorization: `ApiKey ${key}` } });
const withToken = (token: string) => ({ key: null, headers: { authorization: `Bearer ${token}` } });

async function login(app: TestApp, username: string, password: string) {
  return app.request('POST', loginUrl, { key: null, body: { username, password } });
}

function describeCliAccounts(database: 'sqlite' | 'postgres', skip: false | string): void {
  describe(`cms user and apikey commands on ${database}`, { skip }, () => {
    let store: CliStore;
    let app: TestApp;

    before(async () => {
      store = await newCliStore(testConfig(), database);
      // The CLI creates and migrates the store before the app opens it.
      const first = await store.cms(['user', 'create', 'alice', '--role', 'editor', '--email', 'alice@example.com', '--title', 'Alice A.', '--password-stdin'], 'correct horse battery\n');
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /^Created the user alice \(id [a-z0-9]{24}, role editor\)\.\n$/);
      app = await startAppOn(store);
    });

    after(async () => {
      await app?.close();
      await store?.remove();
    });

    it('creates a user who can log in with the role given', async () => {
      const response = await login(app, 'alice', 'correct horse battery');
      assert.equal(response.status, 200, response.text);
      const whoami = await app.request('GET', '/api/v1/@cms/login/whoami', withToken(response.body.token));
      assert.equal(whoami.status, 200);
      assert.deepEqual({ ...whoami.body, _id: undefined }, { _id: undefined, username: 'alice', title: 'Alice A.', email: 'alice@example.com' });
      const user = await app.request('GET', `/api/v1/@cms/user/${whoami.body._id}`);
      assert.equal(user.body.role, 'editor');
      const byEmail = await login(app, 'alice@example.com', 'correct horse battery');
      assert.equal(byEmail.status, 200);
    });

    it('makes a guest by default, and lists the users without any password', async () => {
      const created = await store.cms(['user', 'create', 'gus', '--password-stdin'], 'guest password 1');
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stdout, /role guest/);
      const listed = await store.cms(['user', 'list']);
      assert.equal(listed.code, 0, listed.stderr);
      const lines = listed.stdout.trimEnd().split('\n');
      assert.match(lines[0]!, /^ID\s+USERNAME\s+EMAIL\s+ROLE\s+STATE\s+TITLE$/);
      assert.match(listed.stdout, /\balice\s+alice@example\.com\s+editor\s+active\s+Alice A\.\n/);
      assert.match(listed.stdout, /\bgus\s+guest\s+active\s+gus\n/);
      assert.doesNotMatch(listed.stdout, /scrypt|password/);
      // Recorded as the command line's work, without an address.
      const trail = (await app.request('GET', '/api/v1/@cms/audit?type=%40cms%2Fuser&action=document.insert')).body.results;
      assert.deepEqual(trail.map((record: any) => [record.actor.kind, record.address, record.detail.role]), [['cli', null, 'guest'], ['cli', null, 'editor']]);
    });

    it('refuses an existing username, a short password and an unknown role with exit code 1, creating nothing', async () => {
      const taken = await store.cms(['user', 'create', 'alice', '--password-stdin'], 'another long password');
      assert.deepEqual([taken.code, taken.stdout], [1, '']);
      assert.equal(taken.stderr, 'cms user create: The username is already in use\n');
      const short = await store.cms(['user', 'create', 'bob', '--password-stdin'], 'short\n');
      assert.deepEqual([short.code, short.stderr], [1, 'cms user create: password: must be at least 10 characters\n']);
      const role = await store.cms(['user', 'create', 'bob', '--role', 'root', '--password-stdin'], 'long enough password');
      assert.equal(role.code, 1);
      assert.match(role.stderr, /^cms user create: role: /);
      const empty = await store.cms(['user', 'create', 'bob', '--password-stdin'], '\n');
      assert.deepEqual([empty.code, empty.stderr], [1, 'cms user create: the password is empty\n']);
      assert.equal((await login(app, 'bob', 'long enough password')).status, 400);
      assert.doesNotMatch((await store.cms(['user', 'list'])).stdout, /\bbob\b/);
    });

    it('answers wrong arguments with exit code 2 and the usage, and never takes a password as an argument', async () => {
      const cases = [
        ['user', 'create'],
        ['user', 'create', 'a', 'b', '--password-stdin'],
        ['user', 'create', 'bob', '--colour', 'red'],
        ['user', 'create', 'bob', '--role'],
        ['user', 'password'],
        ['apikey', 'create'],
        ['apikey', 'create', '--role', 'editor', 'extra'],
        ['apikey', 'revoke'],
        ['apikey', 'list', '--all'],
      ];
      // Side by side: each refusal loads the whole program, which takes a while.
      const results = await Promise.all(cases.map((args) => store.cms(args)));
      for (const [index, args] of cases.entries()) {
        const result = results[index]!;
        assert.equal(result.code, 2, args.join(' '));
        assert.equal(result.stdout, '');
        assert.match(result.stderr, new RegExp(`^cms ${args.slice(0, 2).join(' ')}: .+\\n\\nUsage: cms ${args.slice(0, 2).join(' ')}`), args.join(' '));
      }
      const inArgument = await store.cms(['user', 'create', 'bob', '--password=long enough password']);
      assert.equal(inArgument.code, 2);
      assert.match(inArgument.stderr, /never taken as an argument \(it would stay in the shell history\)/);
      const unknown = await store.cms(['users']);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /^cms: unknown command "users"/);
    });

    it('refuses to prompt when standard input is not a terminal, and says to use --password-stdin', async () => {
      const result = await store.cms(['user', 'create', 'bob'], 'long enough password\n');
      assert.equal(result.code, 2);
      assert.match(result.stderr, /^cms user create: standard input is not a terminal to ask the password on: pipe it in with --password-stdin\n/);
      const reset = await store.cms(['user', 'password', 'alice']);
      assert.equal(reset.code, 2);
      assert.equal((await login(app, 'bob', 'long enough password')).status, 400);
    });

    it('resets a password: the old one fails, the new one works, and every old token is dead', async () => {
      await store.cms(['user', 'create', 'carol', '--role', 'admin', '--password-stdin'], 'first password 1');
      const before = await login(app, 'carol', 'first password 1');
      assert.equal(before.status, 200);
      const token = before.body.token as string;
      assert.equal((await app.request('GET', '/api/v1/@cms/login/whoami', withToken(token))).status, 200);

      const reset = await store.cms(['user', 'password', 'carol', '--password-stdin'], 'second password 2\r\n');
      assert.equal(reset.code, 0, reset.stderr);
      assert.equal(reset.stdout, 'Changed the password of carol; the user is signed out everywhere.\n');

      assert.equal((await login(app, 'carol', 'first password 1')).status, 400);
      const dead = await app.request('GET', '/api/v1/@cms/login/whoami', withToken(token));
      assert.deepEqual([dead.status, dead.body.name], [401, 'unauthorized']);
      assert.match(dead.body.message, /^bearer token invalid: /);
      assert.equal((await login(app, 'carol', 'second password 2')).status, 200);
    });

    it('refuses a reset for an unknown user or a short password with exit code 1', async () => {
      const unknown = await store.cms(['user', 'password', 'nobody', '--password-stdin'], 'long enough password');
      assert.deepEqual([unknown.code, unknown.stderr], [1, 'cms user password: no user has the username "nobody"\n']);
      const short = await store.cms(['user', 'password', 'alice', '--password-stdin'], 'short');
      assert.deepEqual([short.code, short.stderr], [1, 'cms user password: password: must be at least 10 characters\n']);
      assert.equal((await login(app, 'alice', 'correct horse battery')).status, 200);
    });

    it('creates API keys that act with their role, lists them without the key, and revokes them at once', async () => {
      const editor = await store.cms(['apikey', 'create', '--role', 'editor', '--label', 'CI deploy']);
      assert.equal(editor.code, 0, editor.stderr);
      const editorKey = editor.stdout.trimEnd();
      assert.match(editorKey, storedKey);
      assert.match(editor.stderr, /^Created the API key ([a-z0-9]{24}) \(role editor\)\. Keep the key now: it is not shown again\.\n$/);
      const editorId = /API key ([a-z0-9]{24})/.exec(editor.stderr)![1]!;
      const guest = await store.cms(['apikey', 'create', '--role', 'guest']);
      const guestKey = guest.stdout.trimEnd();
      assert.match(guestKey, storedKey);
      assert.notEqual(guestKey, editorKey);

      const written = await app.request('POST', '/api/v1/article', { ...withKey(editorKey), body: { title: 'By a stored key' } });
      assert.equal(written.status, 200, written.text);
      assert.equal(written.body.title, 'By a stored key');
      const drafts = await app.request('GET', '/api/v1/article?cmsMode=draft', withKey(editorKey));
      assert.equal(drafts.status, 200);
      const refused = await app.request('POST', '/api/v1/article', { ...withKey(guestKey), body: { title: 'By a guest' } });
      assert.equal(refused.status, 403);
      const asQuery = await app.request('GET', `/api/v1/article?apikey=${encodeURIComponent(guestKey)}`, { key: null });
      assert.equal(asQuery.status, 200);

      const listed = await store.cms(['apikey', 'list']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /^ID\s+ROLE\s+KEY\s+CREATED\s+LAST USED\s+LABEL\n/);
      assert.match(listed.stdout, new RegExp(`^${editorId}\\s+editor\\s+${editorKey.slice(0, 8)}…\\s+\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\s+\\S+\\s+CI deploy$`, 'm'));
      assert.match(listed.stdout, new RegExp(`\\s+guest\\s+${guestKey.slice(0, 8)}…\\s`));
      for (const key of [editorKey, guestKey]) assert.ok(!listed.stdout.includes(key.slice(0, 12)), 'no more of a key than its hint');

      const revoked = await store.cms(['apikey', 'revoke', editorId]);
      assert.deepEqual([revoked.code, revoked.stdout], [0, `Revoked the API key ${editorId}.\n`]);
      const after = await app.request('POST', '/api/v1/article', { ...withKey(editorKey), body: { title: 'Too late' } });
      assert.deepEqual([after.status, after.body], [403, invalidKey]);
      assert.doesNotMatch((await store.cms(['apikey', 'list'])).stdout, new RegExp(editorId));
      const again = await store.cms(['apikey', 'revoke', editorId]);
      assert.deepEqual([again.code, again.stderr], [1, `cms apikey revoke: No API key has the id "${editorId}".\n`]);

      // The audit trail has each creation and the one revocation, never a key nor its hint.
      const trail = async (action: string) => (await app.request('GET', `/api/v1/@cms/audit?action=${action}`, { key: 'admin' })).body.results;
      const created = await trail('apikey.create');
      assert.deepEqual(created.map((record: any) => [record.actor.kind, record.detail.role]), [['cli', 'guest'], ['cli', 'editor']]);
      assert.equal(created[1].ids[0], editorId);
      assert.equal(created[1].detail.label, 'CI deploy');
      assert.deepEqual((await trail('apikey.revoke')).map((record: any) => record.ids), [[editorId]]);
      const text = JSON.stringify(created);
      for (const key of [editorKey, guestKey]) assert.ok(!text.includes(key.slice(0, 8)), 'no key in the trail');
      // What a stored key did names the key by its id (configured keys have none: `_id` null), found with ?actor=.
      const byKey = (await app.request('GET', `/api/v1/@cms/audit?actor=${editorId}`, { key: 'admin' })).body.results;
      assert.deepEqual(
        byKey.map((record: any) => [record.action, record.ids[0], record.actor]),
        [['document.insert', written.body.cmsDocId, { kind: 'apiKey', _id: editorId, username: null, title: 'System Task', role: 'editor' }]],
      );
    });

    it('answers unknown keys, stored-looking or not, with the same 403, and the configured keys still work', async () => {
      const madeUp = `cms_${'A'.repeat(43)}`;
      for (const key of [madeUp, 'cms_short', 'not-a-key-at-all-0123456789', `${madeUp}x`]) {
        const response = await app.request('GET', '/api/v1/article', withKey(key));
        assert.deepEqual([response.status, response.body], [403, invalidKey], key);
      }
      assert.equal((await app.request('POST', '/api/v1/article', { key: 'editor', body: { title: 'Configured' } })).status, 200);
    });

    it('refuses a bad role or label for a key with exit code 1', async () => {
      const role = await store.cms(['apikey', 'create', '--role', 'root']);
      assert.deepEqual([role.code, role.stdout, role.stderr], [1, '', 'cms apikey create: The role must be one of guest, contributor, editor, admin.\n']);
      const label = await store.cms(['apikey', 'create', '--role', 'guest', '--label', 'x'.repeat(201)]);
      assert.equal(label.code, 1);
      assert.match(label.stderr, /The label must be at most 200 characters/);
      const control = await store.cms(['apikey', 'create', '--role', 'guest', '--label', 'bell\u0007']);
      assert.equal(control.code, 1);
    });

    it('stops a revoked key on every app sharing the store, and records its last use', async () => {
      const other = await startAppOn(store);
      try {
        const created = await store.cms(['apikey', 'create', '--role', 'admin', '--label', 'shared']);
        const key = created.stdout.trimEnd();
        const id = /API key ([a-z0-9]{24})/.exec(created.stderr)![1]!;
        for (const each of [app, other]) assert.equal((await each.request('GET', '/api/v1/note', withKey(key))).status, 200);
        // The use is recorded in the background: it shows in the list shortly.
        let listed = '';
        for (let attempt = 0; attempt < 50; attempt++) {
          listed = (await store.cms(['apikey', 'list'])).stdout;
          if (!new RegExp(`^${id}.*never`, 'm').test(listed)) break;
          await sleep(50);
        }
        assert.match(listed, new RegExp(`^${id}\\s+admin\\s+\\S+\\s+\\S+Z\\s+\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\s+shared$`, 'm'));
        assert.equal((await store.cms(['apikey', 'revoke', id])).code, 0);
        for (const each of [app, other]) {
          const response = await each.request('GET', '/api/v1/note', withKey(key));
          assert.deepEqual([response.status, response.body], [403, invalidKey]);
        }
      } finally {
        await other.close();
      }
    });
  });
}

describeCliAccounts('sqlite', false);
describeCliAccounts('postgres', skipWithoutPostgres);

describe('cms user create and password on a terminal', { skip: hasScript() ? false : 'script (util-linux) is not installed' }, () => {
  let store: CliStore;

  before(async () => {
    store = await newCliStore(testConfig(), 'sqlite');
  });

  after(async () => {
    await store?.remove();
  });

  it('asks for the password twice with echo off; the user can then log in', async () => {
    const { code, shown } = await runCliOnTerminal(['user', 'create', 'tess', '--role', 'contributor'], {
      env: store.env,
      answers: [
        { prompt: 'New password: ', line: 'typed on a terminal' },
        { prompt: 'Repeat it: ', line: 'typed on a terminal' },
      ],
    });
    assert.equal(code, 0, shown);
    assert.match(shown, /New password: \r?\nRepeat it: \r?\nCreated the user tess \(id [a-z0-9]{24}, role contributor\)\./);
    assert.ok(!shown.includes('typed'), 'the password is never echoed');
    const app = await startAppOn(store);
    try {
      assert.equal((await login(app, 'tess', 'typed on a terminal')).status, 200);
    } finally {
      await app.close();
    }
  });

  it('refuses two different answers, changing nothing', async () => {
    const { code, shown } = await runCliOnTerminal(['user', 'password', 'tess'], {
      env: store.env,
      answers: [
        { prompt: 'New password: ', line: 'one new password' },
        { prompt: 'Repeat it: ', line: 'another new password' },
      ],
    });
    assert.equal(code, 1, shown);
    assert.match(shown, /cms user password: the two passwords differ/);
    const app = await startAppOn(store);
    try {
      assert.equal((await login(app, 'tess', 'typed on a terminal')).status, 200);
    } finally {
      await app.close();
    }
  });
});
