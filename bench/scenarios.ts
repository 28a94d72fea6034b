/** The requests the bench measures, in the order it runs them: reads first, then writes. */
import { adminKey, rareWord } from './corpus.js';

export interface Scenario {
  /** The name BENCH_SCENARIOS selects by. */
  readonly key: string;
  readonly method: 'GET' | 'POST' | 'PATCH';
  /** Taken in turn, one per request; the table shows the first. */
  readonly paths: readonly string[];
  readonly headers: Record<string, string>;
  readonly bodyTemplate?: string;
  readonly bodyFile?: string;
  /** Fewer than BENCH_CONNECTIONS: each upload takes seconds of CPU, 50 at once would all time out. */
  readonly connections?: number;
}

export interface ScenarioContext {
  readonly articleIds: readonly string[];
  /** The ETag of the get-one answer, if it has one. */
  readonly etag: string | undefined;
  readonly upload: { readonly file: string; readonly contentType: string };
}

const api = '/api/v1/article';
const admin = { authorization: `ApiKey ${adminKey}` };
const json = { ...admin, 'content-type': 'application/json' };

export function getOnePath(ids: readonly string[]): string {
  return `${api}/${ids[Math.floor(ids.length / 2)]}:en:published`;
}

export function scenarios(ctx: ScenarioContext): Scenario[] {
  const one = getOnePath(ctx.articleIds);
  const drafts = ctx.articleIds.map((id) => `${api}/${id}:en:draft`);
  const get = (key: string, path: string, headers: Record<string, string> = {}): Scenario => ({ key, method: 'GET', paths: [path], headers });
  return [
    get('list', api),
    get('list-page-500', `${api}?page=500`),
    get('list-admin-100', `${api}?perPage=100`, admin),
    get('list-filtered', `${api}?category=culture&priority[min]=10&priority[max]=60&sort[title]=1`),
    get('search-1pct', `${api}?search=${rareWord}`),
    get('get-one', one),
    get('get-one-rendered', `${one}?renderAreas=true`),
    // Without an ETag on the answer, the server answers 200 and the row says so.
    get('revalidate', one, { 'if-none-match': ctx.etag ?? '"no-etag"' }),
    {
      key: 'post',
      method: 'POST',
      paths: [api],
      headers: json,
      bodyTemplate: JSON.stringify({ title: 'Bench {n}', category: 'news', priority: 5, tags: ['live'], body: '<p>Posted {n}</p>' }),
    },
    { key: 'patch', method: 'PATCH', paths: drafts, headers: json, bodyTemplate: JSON.stringify({ title: 'Patched {n}' }) },
    { key: 'publish', method: 'POST', paths: drafts.map((path) => `${path}/publish`), headers: admin },
    {
      key: 'upload-12mp',
      method: 'POST',
      paths: ['/api/v1/@cms/attachment/upload'],
      headers: { ...admin, 'content-type': ctx.upload.contentType },
      bodyFile: ctx.upload.file,
      connections: 4,
    },
  ];
}
