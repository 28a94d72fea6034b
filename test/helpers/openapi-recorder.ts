import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { AppConfig } from '../../src/content/app-config.js';
import { openApiDocument, type OpenApiDocument } from '../../src/http/openapi/openapi-document.js';

/**
 * Checks every response a test app sends against the OpenAPI document of its configuration:
 * the operation (method and route pattern) and the status must be in the document, and a JSON
 * body must match the response's schema. So the document cannot drift from what the code answers.
 */

/** Routes that are not part of the JSON API the document describes: files, the admin, the reference itself. */
const outsideTheDocument = [/^\/uploads\//, /^\/admin(\/|$)/, /^\/docs(\/|$)/];

export interface ResponseMismatch {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly problem: string;
}

/** The document's validators, shared by every test app with the same document. */
class DocumentChecker {
  readonly #document: OpenApiDocument;
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction | null>();

  constructor(document: OpenApiDocument) {
    this.#document = document;
    // Not strict: the document's own keywords (`x-cms-shape`...) sit beside the schemas.
    this.#ajv = new Ajv2020({ strict: false, allErrors: false });
    addFormats.default(this.#ajv);
    this.#ajv.addSchema(document as unknown as object, 'openapi');
  }

  /** Null when the response is what the document says; else what is wrong. */
  check(method: string, route: string | undefined, status: number, contentType: string, body: string): string | null {
    if (route === undefined) return this.#checkError(status, contentType, body, 'no route');
    if (outsideTheDocument.some((pattern) => pattern.test(route))) return null;
    const path = route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation = this.#document.paths[path]?.[method.toLowerCase()] as { responses?: Record<string, unknown> } | undefined;
    if (!operation) return `${method} ${path} is not in the OpenAPI document`;
    const response = this.#resolve(operation.responses?.[String(status)]);
    if (!response) return `${method} ${path} answered ${status}, which the OpenAPI document does not list`;
    const pointer = `#/paths/${escape(path)}/${method.toLowerCase()}/responses/${status}`;
    return this.#checkBody(response, pointer, contentType, body);
  }

  /** A request no route took (an unknown path, a refusal before routing) answers the error shape. */
  #checkError(status: number, contentType: string, body: string, what: string): string | null {
    if (status < 400) return `${what}: a ${status} answer outside every route`;
    return this.#validate('#/components/schemas/Error', contentType, body);
  }

  #checkBody(response: Record<string, unknown>, pointer: string, contentType: string, body: string): string | null {
    const content = response.content as Record<string, unknown> | undefined;
    if (!content) return body === '' ? null : `the body should be empty, it is ${body.slice(0, 200)}`;
    // A body the document lists in another type (a page, a script) is checked for its type alone.
    if (Object.keys(content).some((type) => type !== 'application/json' && contentType.startsWith(type))) return null;
    const base = typeof response.$ref === 'string' ? (response.$ref as string) : pointer;
    return this.#validate(`${base}/content/application~1json/schema`, contentType, body);
  }

  #validate(pointer: string, contentType: string, body: string): string | null {
    if (!contentType.startsWith('application/json')) return `the body is ${contentType || 'of no type'}, not JSON`;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return `the body is not JSON: ${body.slice(0, 200)}`;
    }
    const validate = this.#validator(pointer);
    if (!validate || validate(value)) return null;
    const errors = (validate.errors ?? []).map((error) => {
      const extra = (error.params as { additionalProperty?: string }).additionalProperty;
      return `${error.instancePath || 'data'} ${error.message}${extra ? ` (${extra})` : ''}`;
    });
    return `the body does not match ${pointer}: ${errors.join(', ')}; body ${body.slice(0, 300)}`;
  }

  #validator(pointer: string): ValidateFunction | null {
    if (!this.#validators.has(pointer)) this.#validators.set(pointer, this.#ajv.compile({ $ref: `openapi${pointer}` }));
    return this.#validators.get(pointer)!;
  }

  /** A shared response (`#/components/responses/...`) with the `$ref` it was reached by. */
  #resolve(response: unknown): Record<string, unknown> | undefined {
    const ref = (response as { $ref?: string } | undefined)?.$ref;
    if (!ref) return response as Record<string, unknown> | undefined;
    const name = ref.split('/').pop()!;
    const shared = (this.#document.components.responses as Record<string, Record<string, unknown>>)[name];
    return shared && { ...shared, $ref: ref };
  }
}

function escape(path: string): string {
  return path.replace(/~/g, '~0').replace(/\//g, '~1');
}

const checkers = new Map<string, DocumentChecker>();

function checkerFor(config: AppConfig): DocumentChecker {
  const document = openApiDocument(config);
  const key = createHash('sha256').update(JSON.stringify(document)).digest('hex');
  let checker = checkers.get(key);
  if (!checker) {
    checker = new DocumentChecker(document);
    checkers.set(key, checker);
  }
  return checker;
}

/** One answer as the recorder sees it: `route` is Fastify's pattern (`/api/v1/article/:_id`), undefined when no route took it. */
export interface RecordedAnswer {
  readonly method: string;
  readonly route: string | undefined;
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** What is wrong with an answer by the document of `config`, or null when it matches. */
export function answerProblem(config: AppConfig, answer: RecordedAnswer): string | null {
  return checkerFor(config).check(answer.method, answer.route, answer.status, answer.contentType, answer.body);
}

/**
 * Records every response of `app` that does not match the document. `take()` hands over (and
 * forgets) the mismatches so far. Compressed bodies and streams (files) are not read.
 */
export function recordResponses(app: FastifyInstance, config: AppConfig): { take(): ResponseMismatch[] } {
  const checker = checkerFor(config);
  let mismatches: ResponseMismatch[] = [];
  app.addHook('onSend', (request, reply, payload, done) => {
    // A CORS preflight is answered by the CORS plugin for every path: not an operation.
    const compressed = reply.getHeader('content-encoding') !== undefined;
    if (request.method !== 'OPTIONS' && request.method !== 'HEAD' && !compressed && (payload === null || payload === undefined || typeof payload === 'string' || Buffer.isBuffer(payload))) {
      const body = payload === null || payload === undefined ? '' : (payload as string | Buffer).toString();
      const contentType = String(reply.getHeader('content-type') ?? '');
      const problem = checker.check(request.method, request.routeOptions.url, reply.statusCode, contentType, body);
      if (problem) mismatches.push({ method: request.method, url: request.url, status: reply.statusCode, problem });
    }
    done();
  });
  return {
    take() {
      const taken = mismatches;
      mismatches = [];
      return taken;
    },
  };
}
