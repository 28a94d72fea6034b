import { describe, it } from 'node:test';
import { browserSkipReason, expectNoSeriousA11yViolations } from '../helpers/browser.js';
import { signedInAdminSuite } from '../helpers/admin-app.js';
import * as flows from './flows/audit.js';

describe('admin: the audit screen', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('auditor');

  it('lists the record of a change, and filters by user and action', () => flows.auditListsChanges(suite.page, suite.ctx, 'auditor'));
  it('has no serious accessibility violation', async () => {
    const { page } = suite;
    await page.goto('/admin/audit');
    await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
    await expectNoSeriousA11yViolations(page);
  });
});
