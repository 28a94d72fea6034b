/**
 * The configuration served when neither CMS_CONFIG nor ./cms.config.mjs exists, so that
 * `npm start` shows a working site. The API keys are for local use only.
 */
export const demoConfig = {
  // No baseUrl: links follow the port and host the server listens on.
  locales: {
    en: { label: 'English' },
    es: { label: 'Español', fallback: 'en' },
    // A chain to show locale fallback: a published read in es-mx answers es, else en.
    'es-mx': { label: 'Español (México)', fallback: 'es' },
  },
  defaultLocale: 'en',
  apiKeys: {
    'dev-admin-key-change-me': { role: 'admin' },
    'dev-editor-key-change-me': { role: 'editor' },
  },
  modules: {
    article: {
      extend: '@cms/piece-type',
      options: {
        label: 'Article',
        perPage: 10,
        publicApiProjection: { title: 1, slug: 1, category: 1, _url: 1, _author: 1 },
        pagePath: '/articles',
      },
      fields: {
        add: {
          category: { type: 'string' },
          priority: { type: 'integer' },
          tags: {
            type: 'checkboxes',
            choices: [
              { label: 'News', value: 'news' },
              { label: 'Tech', value: 'tech' },
              { label: 'Sports', value: 'sports' },
            ],
          },
          _author: { type: 'relationship', withType: '@cms/user' },
          body: { type: 'area', options: { widgets: { '@cms/rich-text': {}, '@cms/image': {} } } },
        },
      },
    },
    event: {
      extend: '@cms/piece-type',
      options: {
        label: 'Event',
        pagePath: '/events',
        publicApiProjection: { title: 1, slug: 1, startDate: 1, location: 1, _url: 1 },
        // Live preview: serve the page of docs/guides/live-preview.md on port 4321 to see it in the editor.
        preview: { url: 'http://localhost:4321/preview.html?slug={slug}&locale={locale}' },
      },
      fields: {
        add: {
          startDate: { type: 'date', required: true },
          location: { type: 'string' },
          capacity: { type: 'integer', min: 0 },
          ticketUrl: { type: 'url' },
        },
      },
    },
    note: {
      extend: '@cms/piece-type',
      options: { label: 'Note' },
      fields: {
        add: {
          text: { type: 'string', textarea: true },
        },
      },
    },
  },
};
