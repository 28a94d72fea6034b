import { describe, it } from 'node:test';
import { browserSkipReason } from '../helpers/browser.js';
import { signedInAdminSuite } from '../helpers/admin-app.js';
import * as flows from './flows/faults.js';

describe('admin: the faults of issue 22 fixed', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('fixer');

  it('localizes an image of another locale from the media picker and uses it', () => flows.pickerLocalizesAndUses(suite.page, suite.ctx));
  it('tells a contributor the author is hidden, keeps it on save, and offers Archive only on drafts never published', () =>
    flows.contributorOnAuthoredArticle(suite.page, suite.ctx));
  it('finds "Spring" when the list search says "sprin"', () => flows.listSearchMatchesWordBeginnings(suite.page, suite.ctx));
});
