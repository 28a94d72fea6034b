import { describe, it } from 'node:test';
import { browserSkipReason, expectNoSeriousA11yViolations } from '../helpers/browser.js';
import { adminTestConfig, signedInAdminSuite } from '../helpers/admin-app.js';
import * as flows from './flows/scheduling.js';

describe('admin: scheduled publishing', { skip: browserSkipReason }, () => {
  // A scheduler that looks often, so a schedule a few seconds ahead runs within the test.
  const suite = signedInAdminSuite('scheduler', undefined, { ...adminTestConfig(), limits: { schedulerInterval: 200 } });

  it('schedules a publish from the editor, shows it Scheduled in the list and its filter, then published', () =>
    flows.scheduleFromEditorThenPublished(suite.page, suite.ctx));
  it('shows a failed schedule in the list and its reason in the editor, and cancels it', () => flows.failedScheduleIsShown(suite.page, suite.ctx));
  it('has no serious accessibility violation with the schedule form open', async () => {
    const { page } = suite;
    await page.getByText('Schedule…').click();
    await expectNoSeriousA11yViolations(page);
  });
});
