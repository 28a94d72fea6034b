/**
 * The load generator, in its own process: `node dist/bench/load.js <LoadSpec JSON file>` runs
 * autocannon once and prints one JSON line (LoadResult). Write scenarios get a fresh body per
 * request: `{n}` in the body template becomes a counter, and the paths are taken in turn.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface LoadSpec {
  readonly base: string;
  readonly method: string;
  /** Taken in turn, one per request. */
  readonly paths: readonly string[];
  readonly headers: Record<string, string>;
  /** JSON text with `{n}` replaced by a counter that differs per request. */
  readonly bodyTemplate?: string;
  /** A file sent as the body of every request (the upload). */
  readonly bodyFile?: string;
  readonly connections: number;
  readonly seconds: number;
}

export interface LoadResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /** Answers other than 2xx and 3xx, plus connection errors and timeouts. */
  readonly errors: number;
  readonly total: number;
}

/** Request `n`: `{n}` becomes the counter prefixed by the process id, unique within a bench run. */
export function requestAt(spec: LoadSpec, n: number): { path: string; body?: string } {
  return { path: spec.paths[n % spec.paths.length], body: spec.bodyTemplate?.replaceAll('{n}', `${process.pid}-${n}`) };
}

async function main(spec: LoadSpec): Promise<LoadResult> {
  let n = 0;
  const file = spec.bodyFile ? readFileSync(spec.bodyFile) : undefined;
  const result = await autocannon({
    url: spec.base,
    connections: spec.connections,
    duration: spec.seconds,
    headers: spec.headers,
    requests: [
      {
        method: spec.method as autocannon.Request['method'],
        setupRequest(request) {
          const next = requestAt(spec, n++);
          return { ...request, path: next.path, body: file ?? next.body };
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result['4xx'] + result['5xx'] + result.errors,
    total: result.requests.total,
  };
}

if (process.argv[1]?.endsWith('load.js')) {
  const result = await main(JSON.parse(readFileSync(process.argv[2], 'utf8')) as LoadSpec);
  process.stdout.write(JSON.stringify(result) + '\n');
}
