/**
 * The floor: the least any server must do to answer the bench's anonymous reads from the same
 * SQLite file. Fastify with one read connection, the CMS's own compiled queries (a page chosen
 * from the list index or by a full-text search, its count from the kept counts or the search's
 * matches, the related authors in one query), each row parsed and the answer serialized; no
 * permissions, projection, annotations or validators.
 * Run as a forked child with the file as its argument: it sends `{ address }` once it listens.
 * `BENCH_FLOOR=1 npm run bench` measures it beside the CMS (bench/NOTES.md).
 */
import Fastify from 'fastify';
import { openConnection } from '../src/storage/sqlite/connection.js';
import { StatementCache } from '../src/storage/sqlite/statement-cache.js';
import { compileCountQuery, compileFindQuery } from '../src/storage/sqlite/sqlite-query.js';
import type { DocumentQuery, StoredDocument } from '../src/storage/storage-adapter.js';
import { toTextSearch } from '../src/content/query/text-search.js';

const statements = new StatementCache(openConnection({ filename: process.argv[2]!, readOnly: true }));
const published = { locale: 'en', mode: 'published', archived: false, visibility: ['public'] } as const;
const newestFirst = [{ field: 'updatedAt', direction: -1 }] as const;

function find(query: DocumentQuery): StoredDocument[] {
  const { sql, params } = compileFindQuery(query);
  return (statements.statement(sql).pluck().all(...params) as string[]).map((data) => JSON.parse(data) as StoredDocument);
}

/** Each article with its authors in place of their ids: one query for the whole page. */
function withAuthors(articles: StoredDocument[]): StoredDocument[] {
  const ids = [...new Set(articles.flatMap((article) => (article.authorsIds as string[] | undefined) ?? []))];
  const authors = new Map(find({ type: 'author', ...published, docIds: ids, sort: newestFirst }).map((author) => [author.cmsDocId, author]));
  return articles.map((article) => ({ ...article, _authors: ((article.authorsIds as string[]) ?? []).map((id) => authors.get(id)) }));
}

async function main(): Promise<void> {
  const app = Fastify({ logger: false });
  app.get<{ Params: { id: string } }>('/api/v1/article/:id', (request, reply) => {
    const [article] = withAuthors(find({ type: 'article', ids: [request.params.id], archived: false, visibility: ['public'], limit: 1 }));
    void reply.type('application/json; charset=utf-8').send(JSON.stringify(article));
  });
  app.get<{ Querystring: { page?: string; search?: string } }>('/api/v1/article', (request, reply) => {
    const page = Number(request.query.page ?? 1);
    const { search } = request.query;
    // The article projection shows every text: the public searches them all, as the CMS does.
    const list: DocumentQuery = search
      ? { type: 'article', ...published, search: toTextSearch(search, { prefix: false, publicOnly: false }), order: 'relevance' }
      : { type: 'article', ...published };
    const counting = compileCountQuery(list);
    const count = statements.statement(counting.sql).pluck().get(...counting.params) as number;
    const results = withAuthors(find({ ...list, sort: newestFirst, skip: (page - 1) * 10, limit: 10 }));
    void reply.type('application/json; charset=utf-8').send(JSON.stringify({ results, pages: Math.ceil(count / 10), currentPage: page, count }));
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  process.send!({ address });
}

await main();
