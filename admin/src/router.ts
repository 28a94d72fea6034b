import { createRouter, createWebHistory, type RouteLocationNormalized } from 'vue-router';
import SignIn from './screens/SignIn.vue';
import { loadSession, session } from './session';
import { watch } from 'vue';
import { i18n, t } from './i18n';
import { prefetchDocument, preloadEditorCode } from './editor/open-requests';

/**
 * Every screen but sign-in is its own chunk, fetched when first shown (the first load of /admin
 * carries only the shell). `meta.public` screens need no user.
 */
export const router = createRouter({
  history: createWebHistory('/admin/'),
  routes: [
    { path: '/sign-in', name: 'sign-in', component: SignIn, meta: { public: true, title: 'signIn.title' } },
    { path: '/forgot', name: 'forgot', component: () => import('./screens/ForgotPassword.vue'), meta: { public: true, title: 'account.forgotTitle' } },
    { path: '/reset', name: 'reset', component: () => import('./screens/ResetPassword.vue'), meta: { public: true, title: 'account.resetTitle' } },
    { path: '/setup', name: 'setup', component: () => import('./screens/FirstRun.vue'), meta: { public: true, title: 'setup.title' } },
    { path: '/', name: 'home', component: () => import('./screens/HomeScreen.vue'), meta: { title: 'home.title' } },
    { path: '/types/:type', name: 'list', component: () => import('./screens/ListScreen.vue'), props: true },
    {
      path: '/types/:type/new',
      name: 'new',
      component: () => import('./screens/EditorScreen.vue'),
      props: true,
      beforeEnter: (to) => preloadEditorCode(String(to.params.type)),
    },
    {
      path: '/types/:type/:docId',
      name: 'edit',
      component: () => import('./screens/EditorScreen.vue'),
      props: true,
      // The document's requests start now, in parallel with the editor's code.
      beforeEnter: (to) => {
        preloadEditorCode(String(to.params.type));
        prefetchDocument(String(to.params.type), String(to.params.docId), session.locale);
      },
    },
    { path: '/media', name: 'media', component: () => import('./screens/MediaScreen.vue'), meta: { title: 'shell.media' } },
    { path: '/users', name: 'users', component: () => import('./screens/UsersScreen.vue'), meta: { title: 'shell.users', role: 'admin' } },
    { path: '/releases', name: 'releases', component: () => import('./screens/ReleasesScreen.vue'), meta: { title: 'releases.title' } },
    { path: '/audit', name: 'audit', component: () => import('./screens/AuditScreen.vue'), meta: { title: 'shell.audit', role: 'admin' } },
    { path: '/:unknown(.*)*', name: 'not-found', component: () => import('./screens/NotFound.vue'), meta: { public: true, title: 'notFound.title' } },
  ],
});

function applyLocale(to: RouteLocationNormalized): void {
  const wanted = to.query.locale;
  if (typeof wanted === 'string' && session.schema?.locales.some((locale) => locale.name === wanted)) session.locale = wanted;
}

router.beforeEach(async (to) => {
  if (!session.loaded) await loadSession();
  applyLocale(to);
  if (to.meta.public || session.user) return true;
  return { name: 'sign-in', query: to.fullPath === '/' ? {} : { next: to.fullPath } };
});

// A route's `title` is the catalogue key of its screen's name.
function showTitle(to: RouteLocationNormalized): void {
  const title = typeof to.meta.title === 'string' ? t(to.meta.title) : '';
  document.title = title ? t('shell.documentTitle', { screen: title }) : t('shell.adminTitle');
}

router.afterEach(showTitle);
// Another interface language renames the screen at once; screens without a `title` name themselves.
watch(i18n.global.locale, () => {
  if (typeof router.currentRoute.value.meta.title === 'string') showTitle(router.currentRoute.value);
});
