import { compileFindQuery } from '/work/main/dist/src/storage/sqlite/sqlite-query.js';
const q = { ids: ['mfirejgjop7l92oqq3xpagoq:en:published'], type: 'article', archived: false, visibility: ['public'], limit: 1 };
const q2 = { type: 'author', locale: 'en', mode: 'published', docIds: ['co99zizmdhi6bxvmf2dn4wo9', 'kfpko06t7j4dk0ki19wgfw5h'], archived: false, visibility: ['public'], sort: [{ field: 'updatedAt', direction: -1 }] };
const q3 = { type: 'article', locale: 'en', mode: 'published', archived: false, visibility: ['public'], sort: [{ field: 'updatedAt', direction: -1 }], skip: 0, limit: 10 };
for (const [n, x] of Object.entries({ q, q2, q3 })) { for (let i = 0; i < 20000; i++) compileFindQuery(x); const t = performance.now(); for (let i = 0; i < 100000; i++) compileFindQuery(x); console.log(n, ((performance.now() - t) / 100000 * 1000).toFixed(2), 'us'); }
