import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../helpers/typecheck.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/*
 * The reference's curl examples run as written: every ```sh block of a page that calls curl is
 * run, in the order of the page, in one bash (`set -euo pipefail`, so an unset variable or a
 * failing command fails it) against the server as `npm start` serves it, with the bundled demo.
 * Each curl call's status is recorded: a 5xx, no answer, or a 4xx the example does not announce
 * fails the page. An example announces its status in a comment on its last line or on the
 * comment line right after it (`# 404 from now on`, `# HTTP/1.1 304 Not Modified`).
 */

const pages = ['docs/reference/rest-api.md', 'docs/reference/field-types.md', 'docs/guides/mcp.md', 'docs/guides/accounts.md'];

interface CurlCall {
  readonly where: string;
  readonly status: number | null;
  readonly expected: number | null;
}

const callsCurl = (line: string) => /(^|[\s$(|])curl\s/.test(line);
const assignsOnly = (lines: readonly string[]) => lines.every((line) => line.trim() === '' || line.trimStart().startsWith('#') || /^[A-Z_]+=/.test(line));

/** The ```sh blocks of a page that call curl or set the variables they use, each with the line it starts on. */
function curlBlocks(markdown: string): { line: number; text: string[] }[] {
  const blocks: { line: number; text: string[] }[] = [];
  let current: { line: number; text: string[] } | null = null;
  markdown.split('\n').forEach((text, index) => {
    if (current === null && text.trim() === '```sh') current = { line: index + 2, text: [] };
    else if (current !== null && text.trim() === '```') {
      if (current.text.some(callsCurl) || assignsOnly(current.text)) blocks.push(current);
      current = null;
    } else current?.text.push(text);
  });
  return blocks;
}

const announced = /#\s*(?:HTTP\/[\d.]+\s+)?(\d{3})\b/;

/**
 * The page's examples as one bash script: before each command that calls curl, the place it was
 * written (`__where`) and the status its comment announces (`__expected`), which the curl
 * function below records with the status it got.
 */
function scriptOf(page: string, markdown: string, origin: string): string {
  const out: string[] = [];
  for (const block of curlBlocks(markdown)) {
    const lines = block.text.map((line) => line.replaceAll('http://localhost:3000', origin));
    for (let i = 0; i < lines.length; i++) {
      const start = i;
      while (lines[i]!.endsWith('\\') && i + 1 < lines.length) i++;
      const command = lines.slice(start, i + 1);
      const last = command[command.length - 1]!;
      if (last.trimStart().startsWith('#') || !callsCurl(command.join(' '))) {
        out.push(...command);
        continue;
      }
      const comment = last.includes(' #') ? last.slice(last.indexOf(' #') + 1) : '';
      const following = lines[i + 1]?.trimStart().startsWith('#') ? lines[i + 1]! : '';
      const expected = announced.exec(comment)?.[1] ?? announced.exec(following)?.[1];
      const where = `${page}:${block.line + start}`;
      out.push(`__where='${where}'; __expected='${expected ?? ''}'`, ...command);
    }
  }
  return out.join('\n');
}

const preamble = `set -euo pipefail
__where=''; __expected=''
trap 'echo "stopped after the example at $__where" >&2' ERR
curl() {
  local headers status rc=0
  headers=$(mktemp)
  command curl -sS -D "$headers" "$@" || rc=$?
  status=$(awk 'toupper($1) ~ /^HTTP\\// { s = $2 } END { print s }' "$headers")
  rm -f "$headers"
  printf '%s\\t%s\\t%s\\n' "$__where" "\${status:-none}" "$__expected" >>"$CURL_LOG"
  return $rc
}
`;

function runBash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

function refusedCalls(calls: readonly CurlCall[]): string[] {
  return calls
    .filter(({ status, expected }) => status === null || status >= 500 || (expected === null ? status >= 400 : status !== expected))
    .map(({ where, status, expected }) => `${where}: answered ${status ?? 'nothing'}${expected === null ? '' : `, the example says ${expected}`}`);
}

describe('the curl examples of the reference run as written against the demo', () => {
  let server: ServerProcess;
  let dir: string;
  // The password reset examples mail their links: to a sink that takes every mail and keeps none.
  const mailSink = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false, onData: (stream, _session, done) => stream.on('end', () => done()).resume() });
  before(async () => {
    await new Promise<void>((resolve) => mailSink.listen(0, '127.0.0.1', resolve));
    const mailPort = (mailSink.server.address() as AddressInfo).port;
    server = await startServerProcess({ env: { CMS_MAIL_SMTP: `smtp://127.0.0.1:${mailPort}`, CMS_MAIL_FROM: 'cms@example.com' } });
    dir = await mkdtemp(join(tmpdir(), 'cms-docs-curl-'));
  });
  after(async () => {
    await server?.stop();
    await new Promise<void>((resolve) => mailSink.close(() => resolve()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (const page of pages) {
    it(`${page}: every example answers what it says`, async () => {
      const markdown = await readFile(join(packageRoot, page), 'utf8');
      const log = join(dir, `${page.replaceAll('/', '-')}.log`);
      await writeFile(log, '');
      const script = preamble + scriptOf(page, markdown, `http://127.0.0.1:${server.port}`);
      const { code, output } = await runBash(script, dir, { CURL_LOG: log });
      const calls = (await readFile(log, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line): CurlCall => {
          const [where, status, expected] = line.split('\t');
          return { where: where!, status: status === 'none' ? null : Number(status), expected: expected ? Number(expected) : null };
        });
      assert.equal(code, 0, `the examples stopped (exit ${code}):\n${output.slice(-1500)}`);
      assert.ok(calls.length >= curlBlocks(markdown).length, 'every block called curl');
      assert.deepEqual(refusedCalls(calls), [], output.slice(-1500));
      // The record is live: each call left a status, the refusals the page announces among them.
      assert.ok(calls.every(({ status }) => status !== null));
    });
  }
});
