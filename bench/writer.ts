/**
 * An editor beside the reads: `node dist/bench/writer.js <spec JSON file>` PATCHes drafts in turn
 * at a steady rate (a request every 1/rate s, whether or not the previous one has answered), each
 * with a distinct body, until SIGTERM; then prints `{ "ok": n, "failed": n }` and exits. It
 * prints `ready` once it has started, so the load begins with the writes.
 */
import { readFileSync } from 'node:fs';

export interface WriterSpec {
  readonly base: string;
  readonly paths: readonly string[];
  readonly headers: Record<string, string>;
  /** `{n}` becomes a distinct id per request. */
  readonly bodyTemplate: string;
  readonly perSecond: number;
  /** What makes this run's ids differ from every other run's. */
  readonly run: string;
}

function main(spec: WriterSpec): void {
  let sent = 0;
  let ok = 0;
  let failed = 0;
  const write = async (n: number) => {
    const path = spec.paths[n % spec.paths.length];
    const body = spec.bodyTemplate.replaceAll('{n}', `${spec.run}-writer-${n}`);
    try {
      const response = await fetch(spec.base + path, { method: 'PATCH', headers: spec.headers, body });
      await response.arrayBuffer();
      if (response.status < 400) ok++;
      else failed++;
    } catch {
      failed++;
    }
  };
  const timer = setInterval(() => void write(sent++), 1000 / spec.perSecond);
  process.on('SIGTERM', () => {
    clearInterval(timer);
    process.stdout.write(JSON.stringify({ ok, failed }) + '\n', () => process.exit(0));
  });
  process.stdout.write('ready\n');
}

main(JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as WriterSpec);
