// Writes the admin's API types (admin/src/api/generated/) from the built server's OpenAPI
// document. `npm run generate:admin-types` builds the server first.
import { writeFile } from 'node:fs/promises';

const { adminTypesPath, adminTypesSource } = await import('../dist/src/cli/types/admin-types.js');
const target = new URL(`../${adminTypesPath}`, import.meta.url);
await writeFile(target, await adminTypesSource());
console.log(`wrote ${adminTypesPath}`);
