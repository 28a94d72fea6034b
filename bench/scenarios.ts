/**
 * The requests the bench measures, in the order it runs them. Each names the server it needs
 * (`server`): the default one, or one started with the response cache off; the bench starts a
 * new server process whenever that changes, so cache-off reads run before the writes add
 * articles, and the writes run on a fresh default server.
 */
import { adminKey, articleBody, rareWord } from './corpus.js';

export type ServerSettings = 'default' | 'cache-off';

export interface Scenario {
  /** The name BENCH_SCENARIOS selects by. */
  readonly key: string;
  readonly server: ServerSettings;
  readonly method: 'GET' | 'POST' | 'PATCH';
  /** Taken in turn, one per request; the table shows the first. */
  readonly paths: readonly string[];
  readonly headers: Record<string, string>;
  /** JSON with `{n}` where each request puts its own id. */
  readonly bodyTemplate?: string;
  /** An editor PATCHes drafts at BENCH_WRITER_RATE a second (writer.ts) while the reads run. */
  readonly withWriter?: boolean;
  /** What the table says of the request beside its path. */
  readonly note: string;
}

export interface ScenarioContext {
  readonly articleIds: readonly string[];
  readonly authorIds: readonly string[];
  /** The ETag of the get-one answer, if it has one. */
  readonly etag: string | undefined;
}

const api = '/api/v1/article';
const admin = { authorization: `ApiKey ${adminKey}` };
const json = { ...admin, 'content-type': 'application/json' };

export function getOnePath(ids: readonly string[]): string {
  return `${api}/${ids[Math.floor(ids.length / 2)]}:en:published`;
}

/**
 * The drafts of the seeded articles, each a PATCH target in turn: at most `max`, spread evenly over
 * the store. wrk keeps the paths in a Lua table that its garbage collector walks on every cycle
 * (each request allocates): 100,000 of them made wrk, not the bare server, the limit of a write row.
 */
export function draftPaths(ids: readonly string[], max = 5000): string[] {
  const step = Math.max(1, ids.length / max);
  const chosen: string[] = [];
  for (let at = 0; at < ids.length && chosen.length < max; at += step) chosen.push(ids[Math.floor(at)]!);
  return chosen.map((id) => `${api}/${id}:en:draft`);
}

/** A PATCH that changes one field of a draft, a distinct value each. */
export const patchTemplate = JSON.stringify({ title: 'Edited {n}' });

/** A new article as an editor posts it: about 1 KB of rich text, tags, two related authors. */
export function postTemplate(authorIds: readonly string[]): string {
  return JSON.stringify(articleBody(7, authorIds, '{n}'));
}

export function scenarios(ctx: ScenarioContext): Scenario[] {
  const one = getOnePath(ctx.articleIds);
  const drafts = draftPaths(ctx.articleIds);
  const read = (key: string, server: ServerSettings, path: string, note = 'anonymous', headers: Record<string, string> = {}): Scenario => ({
    key,
    server,
    method: 'GET',
    paths: [path],
    headers,
    note,
  });
  const writing = { withWriter: true, note: 'anonymous, an editor PATCHing drafts meanwhile' };
  return [
    read('list', 'default', api),
    read('list-page-1', 'default', `${api}?page=1`),
    read('get-one', 'default', one),
    { ...read('list-while-writing', 'default', api), ...writing },
    { ...read('get-one-while-writing', 'default', one), ...writing },
    read('list-page-500', 'default', `${api}?page=500`),
    read('list-filtered', 'default', `${api}?category=culture&priority[min]=10&priority[max]=60&sort[title]=1`),
    read('search-1pct', 'default', `${api}?search=${rareWord}`),
    read('get-one-rendered', 'default', `${one}?renderAreas=true`),
    // Without an ETag on the answer, the server answers 200 and the row says so.
    read('revalidate', 'default', one, 'anonymous, If-None-Match', { 'if-none-match': ctx.etag ?? '"no-etag"' }),
    read('list-page-1-cache-off', 'cache-off', `${api}?page=1`),
    read('get-one-cache-off', 'cache-off', one),
    read('list-page-500-cache-off', 'cache-off', `${api}?page=500`),
    read('search-1pct-cache-off', 'cache-off', `${api}?search=${rareWord}`),
    { key: 'post', server: 'default', method: 'POST', paths: [api], headers: json, bodyTemplate: postTemplate(ctx.authorIds), note: 'admin, 1 KB rich text, tags, 2 authors, a distinct body each' },
    { key: 'patch', server: 'default', method: 'PATCH', paths: drafts, headers: json, bodyTemplate: patchTemplate, note: `admin, the title, ${drafts.length} drafts in turn` },
    { key: 'publish', server: 'default', method: 'POST', paths: drafts.map((path) => `${path}/publish`), headers: admin, note: `admin, ${drafts.length} drafts in turn` },
  ];
}

/** The scenarios the floor server (floor-server.ts) answers: reads with the cache off. */
export const floorScenarios = new Set(['list-page-1-cache-off', 'get-one-cache-off', 'list-page-500-cache-off', 'search-1pct-cache-off']);
