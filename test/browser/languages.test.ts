import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSkipReason, expectNoSeriousA11yViolations, screenshot } from '../helpers/browser.js';
import { adminPassword, adminTestConfig, signedInAdminSuite, signedInPage } from '../helpers/admin-app.js';
import { api, uniqueWord } from './flow-support.js';

/** What each language shows for a few of the admin's words (admin/src/i18n/messages). */
const expected = {
  es: { menu: 'Idioma', home: 'Contenido', title: 'Contenido · Administración del CMS', signOut: 'Cerrar sesión', perPage: 'Por página', lastChange: 'Último cambio', signIn: 'Iniciar sesión' },
  fr: { menu: 'Langue', home: 'Contenu', title: 'Contenu · Administration du CMS', signOut: 'Se déconnecter', perPage: 'Par page', lastChange: 'Dernière modification', signIn: 'Connexion' },
  de: { menu: 'Sprache', home: 'Inhalte', title: 'Inhalte · CMS-Verwaltung', signOut: 'Abmelden', perPage: 'Pro Seite', lastChange: 'Letzte Änderung', signIn: 'Anmelden' },
} as const;
/** The language menu of the top bar, whatever language it speaks now (the locale menu beside it offers no German). */
const languageMenu = (page: Page) => page.getByRole('combobox').filter({ has: page.locator('option[value="de"]') });

/** Refusals of the page's Content-Security-Policy (an eval would be one), as the console reports them. */
function cspRefusals(page: Page): string[] {
  const refusals: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|unsafe-eval/i.test(message.text())) refusals.push(message.text());
  });
  page.on('pageerror', (error) => {
    if (/unsafe-eval|Content Security Policy/i.test(error.message)) refusals.push(error.message);
  });
  return refusals;
}

describe('admin: the interface in the editor\'s language', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('polyglot', 'Polly Glot');

  it('switches the whole admin to es, fr and de from the top bar, with dates in that language and nothing refused by the CSP', async () => {
    const { page, ctx } = suite;
    const title = uniqueWord('Sprachtest');
    await api(ctx, '/article', { method: 'POST', body: { title } });
    const refusals = cspRefusals(page);
    await page.goto('/admin/');
    await page.getByRole('heading', { level: 1, name: 'Content' }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');

    for (const [language, words] of Object.entries(expected)) {
      await page.goto('/admin/');
      await languageMenu(page).selectOption(language);
      // At once, without a reload: the heading, the menu's own name, the sign-out button, <html lang>.
      await page.getByRole('heading', { level: 1, name: words.home }).waitFor();
      await page.locator('header').getByText(words.menu, { exact: true }).waitFor();
      await page.getByRole('button', { name: words.signOut }).waitFor();
      assert.equal(await page.locator('html').getAttribute('lang'), language);
      await page.waitForFunction((title) => document.title === title, words.title);

      await page.goto('/admin/types/article');
      await page.getByText(words.perPage, { exact: true }).waitFor();
      await page.getByRole('button', { name: words.lastChange }).waitFor();
      const row = page.getByRole('row').filter({ hasText: title });
      const time = row.locator('td.changed time');
      const shown = (await time.textContent())?.trim() ?? '';
      // The date as Intl writes it in that language (in the page, so with the browser's own ICU data and time zone).
      const [inLanguage, inEnglish] = await time.evaluate((element, lang) => {
        const at = new Date(element.getAttribute('datetime')!);
        const format = (locale: string) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(at);
        return [format(lang), format('en')];
      }, language);
      assert.equal(shown, inLanguage, `the last change is written in ${language}`);
      assert.notEqual(shown, inEnglish, `${language} writes the date otherwise than English`);
      await page.goto('/admin/');
      await page.getByRole('heading', { level: 1, name: words.home }).waitFor();
      await screenshot(page, `admin-language-${language}`);
    }

    // The choice is kept: a reload stays in the last language chosen.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: expected.de.home }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'de');
    await expectNoSeriousA11yViolations(page);
    assert.deepEqual(refusals, [], 'no Content-Security-Policy refusal');

    await languageMenu(page).selectOption('en');
    await page.getByRole('heading', { level: 1, name: 'Content' }).waitFor();
  });

  it('keeps the chosen language for the user on the server: cleared localStorage and a fresh browser show it once signed in', async () => {
    const { page, site, browser } = suite;
    await site.createUser({ username: 'sprecher', password: adminPassword, role: 'admin', title: 'Sepp Sprecher' });
    const signedIn = await signedInPage(browser, site.baseUrl, 'sprecher', adminPassword);
    try {
      await languageMenu(signedIn).selectOption('de');
      await signedIn.getByRole('heading', { level: 1, name: expected.de.home }).waitFor();
      // Saved through the preferences API, and mirrored in this browser for its sign-in page.
      await signedIn.waitForFunction(() => localStorage.getItem('cms.admin.language') === 'de');
      const kept = await signedIn.evaluate(async () => (await fetch('/api/v1/@cms/preferences')).json());
      assert.equal(kept.language, 'de');
      await signedIn.evaluate(() => localStorage.clear());
    } finally {
      await signedIn.context().close();
    }

    // A fresh browser in English, nothing in its localStorage: the sign-in page is English, the admin German once signed in.
    const context = await browser.newContext({ baseURL: site.baseUrl, locale: 'en-US' });
    try {
      const fresh = await context.newPage();
      await fresh.goto('/admin/sign-in');
      assert.equal(await fresh.evaluate(() => localStorage.length), 0);
      await fresh.getByLabel('Username or email').fill('sprecher');
      await fresh.getByLabel('Password').fill(adminPassword);
      await fresh.getByRole('button', { name: 'Sign in' }).click();
      await fresh.getByRole('heading', { level: 1, name: expected.de.home }).waitFor();
      await fresh.getByRole('button', { name: expected.de.signOut }).waitFor();
      assert.equal(await fresh.locator('html').getAttribute('lang'), 'de');
      assert.equal(await fresh.evaluate(() => localStorage.getItem('cms.admin.language')), 'de', 'mirrored again');
      // The other user's language is not this one's: the suite's admin, in its own browser, stays English.
      await page.goto('/admin/');
      await page.getByRole('heading', { level: 1, name: 'Content' }).waitFor();
      // Signing out keeps the language shown: the sign-in page is German too.
      await fresh.getByRole('button', { name: expected.de.signOut }).click();
      await fresh.getByRole('heading', { level: 1, name: expected.de.signIn }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('opens in the first of the browser\'s languages it speaks, and in English when it speaks none', async () => {
    for (const [locale, heading] of [['fr-CA', expected.fr.signIn], ['ja-JP', 'Sign in']] as const) {
      const context = await suite.browser.newContext({ baseURL: suite.site.baseUrl, locale });
      try {
        const page = await context.newPage();
        await page.goto('/admin/sign-in');
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        assert.equal(await page.locator('html').getAttribute('lang'), locale === 'fr-CA' ? 'fr' : 'en');
      } finally {
        await context.close();
      }
    }
  });
});

/** A type whose labels and help are configured per language (docs/guides/admin.md "Languages"). */
function recipeConfig(): Record<string, unknown> {
  const config = adminTestConfig();
  const recipe = {
    extend: '@cms/piece-type',
    options: {
      label: { en: 'Recipe', de: 'Rezept' },
      pluralLabel: { en: 'Recipes', de: 'Rezepte' },
      columns: [{ name: 'title', label: { en: 'Dish', de: 'Gericht' } }, 'minutes', { name: 'updatedAt', label: 'Edited' }, 'createdAt'],
    },
    fields: {
      add: {
        minutes: { type: 'integer', label: { en: 'Cooking time', de: 'Kochzeit' }, help: { en: 'In minutes', de: 'In Minuten' } },
        course: { type: 'select', label: { en: 'Course', de: 'Gang' }, choices: [{ label: { en: 'Starter', de: 'Vorspeise' }, value: 'starter' }, { label: 'Main', value: 'main' }] },
      },
    },
  };
  return { ...config, modules: { ...(config.modules as Record<string, unknown>), recipe } };
}

describe('admin: labels of the configuration in the editor\'s language', { skip: browserSkipReason }, () => {
  const suite = signedInAdminSuite('rezeptor', 'Rita Rezept', recipeConfig);

  it('shows a type\'s German labels in German, English ones in English, English where its language has none, and the built-in fields in each', async () => {
    const { page, ctx } = suite;
    await api(ctx, '/recipe?cmsLocale=en', { method: 'POST', body: { title: 'Soup', minutes: 20 } });
    for (const [language, plural, label, help, course, starter] of [
      ['de', 'Rezepte', 'Kochzeit', 'In Minuten', 'Gang', 'Vorspeise'],
      ['en', 'Recipes', 'Cooking time', 'In minutes', 'Course', 'Starter'],
      ['fr', 'Recipes', 'Cooking time', 'In minutes', 'Course', 'Starter'],
    ] as const) {
      await page.goto('/admin/');
      await languageMenu(page).selectOption(language);
      await page.getByRole('navigation').getByRole('link', { name: plural, exact: true }).waitFor();
      await page.goto('/admin/types/recipe/new');
      await page.getByRole('spinbutton', { name: label }).waitFor();
      await page.getByText(help, { exact: true }).waitFor();
      // The fields every type has: the server names them in English, the catalogue translates them.
      const builtIn = { de: ['Titel', 'Sichtbarkeit', 'Öffentlich'], en: ['Title', 'Visibility', 'Public'], fr: ['Titre', 'Visibilité', 'Public'] }[language];
      await page.getByRole('textbox', { name: builtIn[0], exact: true }).waitFor();
      const visibility = await page.getByRole('combobox', { name: builtIn[1], exact: true }).locator('option').allTextContents();
      assert.equal(visibility[1]?.trim(), builtIn[2], `the visibility choices in ${language}: ${visibility.join(' | ')}`);
      const courses = await page.getByRole('combobox', { name: course }).locator('option').allTextContents();
      assert.deepEqual(courses.slice(1).map((text) => text.trim()), [starter, 'Main'], `the choices in ${language}`);
      if (language !== 'fr') {
        // The list's columns: configured labels win, per language or not; a built-in one nobody labelled speaks the catalogue.
        await page.goto('/admin/types/recipe');
        await page.getByRole('link', { name: 'Soup' }).waitFor();
        const names = (await page.getByRole('columnheader').allInnerTexts()).map((text) => text.split('\n')[0]!.trim()).filter(Boolean);
        const expected = language === 'de' ? ['Gericht', 'Kochzeit', 'Edited', 'Erstellt'] : ['Dish', 'Cooking time', 'Edited', 'Created'];
        assert.deepEqual(names.filter((name) => expected.includes(name)), expected, `the columns in ${language}: ${names.join(' | ')}`);
        assert.ok(!names.some((name) => ['Title', 'Titel', 'Last change', 'Letzte Änderung'].includes(name)), names.join(' | '));
      }
      if (language === 'de') {
        await page.goto('/admin/types/recipe/new');
        await page.getByRole('heading', { level: 1, name: 'Neu: Rezept' }).waitFor();
        await screenshot(page, 'admin-language-labels-de');
      }
    }
  });
});
