/**
 * Given to a server process with `node --import` (test/api/optional-modules.test.ts): writes the
 * URL of every module the process resolves, a line each, to the file `CMS_TEST_MODULES_FILE`
 * names. The resolve hook runs on Node's loader thread and sees every `import` and `import()`
 * of an ES module, which is how the server reaches its dependencies. Nothing of the server
 * knows of it.
 */
import { register } from 'node:module';

const file = process.env.CMS_TEST_MODULES_FILE;
if (!file) throw new Error('CMS_TEST_MODULES_FILE names no file to record the loaded modules in');
register('./module-recorder-hooks.js', { parentURL: import.meta.url, data: { file } });
