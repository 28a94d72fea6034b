import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';

const root = fileURLToPath(new URL('.', import.meta.url));
/** `npm run dev:admin` serves the admin with hot reload and sends API calls to this CMS. */
const devApi = process.env.CMS_DEV_API ?? 'http://localhost:3000';

/**
 * The admin is built into dist/admin and served by the CMS at /admin (src/http/routes/admin.ts).
 * File names carry a content hash, so the server can cache them for a year; only index.html is
 * revalidated.
 */
export default defineConfig({
  root,
  base: '/admin/',
  plugins: [vue()],
  // vue-i18n's build flags: the Composition API only, and messages compiled without eval (the admin's CSP has no 'unsafe-eval').
  define: {
    __VUE_I18N_FULL_INSTALL__: true,
    __VUE_I18N_LEGACY_API__: false,
    __INTLIFY_JIT_COMPILATION__: true,
    __INTLIFY_DROP_MESSAGE_COMPILER__: false,
    __INTLIFY_PROD_DEVTOOLS__: false,
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/admin', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Each screen is its own chunk, loaded when first shown; the budget is for the first load.
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: Object.fromEntries(
      ['/api', '/uploads'].map((prefix) => [
        prefix,
        {
          target: devApi,
          // The CMS refuses cookie writes from another origin (CSRF), so the proxy speaks as the CMS's own.
          configure: (proxy) => proxy.on('proxyReq', (request) => request.setHeader('origin', devApi)),
        },
      ]),
    ),
  },
});
