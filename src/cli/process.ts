import { runCli } from './main.js';

/** The `cms` program (`bin/cms.js`): the command line of this process, on its own streams. */
const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
