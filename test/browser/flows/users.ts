import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { api, eventually, uniqueWord, type FlowContext } from '../flow-support.js';

/**
 * End-to-end flow of the users screen (admin/src/screens/UsersScreen.vue, admin/src/users/),
 * from a signed-in admin page.
 */
type User = { _id: string; username: string; title: string; role: string; disabled: boolean };

async function userNamed(ctx: FlowContext, username: string): Promise<User | undefined> {
  const answer = await api<{ results: User[] }>(ctx, `/@cms/user?username[]=${encodeURIComponent(username)}`);
  return answer.results[0];
}

/** POST /@cms/login/login: the status a password gets (200 signs in, 400 refused). */
async function loginStatus(ctx: FlowContext, username: string, password: string): Promise<number> {
  const response = await fetch(`${ctx.baseUrl}/api/v1/@cms/login/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return response.status;
}

/**
 * Creates a contributor (a short password is refused beside the field first), makes them an
 * editor, disables and enables them, resets their password, and signs in as them in a fresh
 * browser context with the new password.
 */
export async function manageUsers(page: Page, ctx: FlowContext): Promise<void> {
  const username = uniqueWord('flowuser');
  const firstPassword = 'first password 123';
  const newPassword = 'second password 456';
  await page.goto(`${ctx.baseUrl}/admin/users`);
  await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();

  // 1. Create, the password rules first.
  await page.getByRole('button', { name: 'New user' }).click();
  const form = page.getByRole('form', { name: 'New user' });
  await form.getByLabel('Username').fill(username);
  await form.getByLabel('Display name').fill(`Flow ${username}`);
  await form.getByLabel('Email').fill(`${username}@example.com`);
  await form.getByLabel('Password').fill('short');
  await form.getByLabel('Role').selectOption('contributor');
  await form.getByRole('button', { name: 'Create user' }).click();
  await form.getByText('must be at least 10 characters').waitFor();
  assert.equal(await form.getByLabel('Password').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator('.notifications .notice').count(), 0, 'said once, beside the field: no toast too');
  await form.getByLabel('Password').fill(firstPassword);
  await form.getByRole('button', { name: 'Create user' }).click();
  const row = page.getByRole('row').filter({ hasText: username });
  await row.waitFor();
  await eventually(async () => assert.equal((await userNamed(ctx, username))?.role, 'contributor'));
  assert.equal(await loginStatus(ctx, username, firstPassword), 200);

  // 2. Role.
  await row.getByLabel(`Role of ${username}`).selectOption('editor');
  await eventually(async () => assert.equal((await userNamed(ctx, username))?.role, 'editor'));

  // 3. Disable (they cannot sign in), then enable again.
  await row.getByRole('button', { name: 'Disable' }).click();
  await row.getByText('Disabled').waitFor();
  await eventually(async () => assert.equal((await userNamed(ctx, username))?.disabled, true));
  assert.equal(await loginStatus(ctx, username, firstPassword), 400);
  await row.getByRole('button', { name: 'Enable' }).click();
  await row.getByText('Active').waitFor();
  await eventually(async () => assert.equal((await userNamed(ctx, username))?.disabled, false));

  // 4. Reset the password: the rules beside the field, then a good one.
  await row.getByRole('button', { name: 'Reset password' }).click();
  const dialog = page.getByRole('dialog', { name: `Reset the password of Flow ${username}` });
  await dialog.getByLabel('New password').fill('tiny');
  await dialog.getByRole('button', { name: 'Set password' }).click();
  await dialog.getByText('must be at least 10 characters').waitFor();
  await dialog.getByLabel('New password').fill(newPassword);
  await dialog.getByRole('button', { name: 'Set password' }).click();
  await dialog.waitFor({ state: 'detached' });
  await eventually(async () => assert.equal(await loginStatus(ctx, username, newPassword), 200));

  // 5. They sign in with it in a fresh context: an editor sees Media but not Users.
  const browser = page.context().browser();
  if (!browser) return;
  const context = await browser.newContext();
  try {
    const theirs = await context.newPage();
    await theirs.goto(`${ctx.baseUrl}/admin/sign-in`);
    await theirs.getByLabel('Username or email').fill(username);
    await theirs.getByLabel('Password').fill(newPassword);
    await theirs.getByRole('button', { name: 'Sign in' }).click();
    const nav = theirs.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Media' }).waitFor();
    assert.equal(await nav.getByRole('link', { name: 'Users' }).count(), 0);
  } finally {
    await context.close();
  }
}
