#!/usr/bin/env node
// The `cms` command line (`npx cms …`, `npm run cms -- …`). It runs the compiled server code,
// which `npm run build` (and `npm start`, `npm test`) writes to dist/.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/process.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('cms: the server is not built yet: run `npm run build` first');
  process.exit(1);
}
await import(entry.href);
