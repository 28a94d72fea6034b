import { createHash } from 'node:crypto';
import type { AppConfig } from '../../content/app-config.js';
import type { FieldTypeLookup } from '../../content/fields/convert-schema.js';
import { visiblePieceTypes } from '../../content/schema/visible-config.js';
import type { Principal, Role } from '../../core/principal.js';
import { openApiDocument, type OpenApiDocument } from './openapi-document.js';

/** One audience's document, serialized once, with a digest of its bytes for `ETag`. */
export interface OpenApiAnswer {
  readonly document: OpenApiDocument;
  readonly json: string;
  readonly digest: string;
}

type Audience = Role | 'anonymous';

/**
 * The OpenAPI document as each role may see it, as `@cms/schema` shows the configuration: the
 * piece types the role may read, and of a type it has no API access to only the fields of the
 * public projection. Each is built and serialized once, by the first request of its audience:
 * the five of them take megabytes a server that is never asked for them need not hold.
 */
export class OpenApiAnswers {
  readonly #answers = new Map<Audience, OpenApiAnswer>();
  readonly #config: AppConfig;
  readonly #fieldTypes: FieldTypeLookup;

  constructor(config: AppConfig, fieldTypes: FieldTypeLookup) {
    this.#config = config;
    this.#fieldTypes = fieldTypes;
  }

  for(principal: Principal): OpenApiAnswer {
    const audience: Audience = principal.role ?? 'anonymous';
    let answer = this.#answers.get(audience);
    if (!answer) {
      answer = this.#build(audience);
      this.#answers.set(audience, answer);
    }
    return answer;
  }

  #build(audience: Audience): OpenApiAnswer {
    const principal: Principal = { kind: audience === 'anonymous' ? 'anonymous' : 'apiKey', role: audience === 'anonymous' ? null : audience, userId: null, title: null, username: null };
    const document = openApiDocument({ ...this.#config, pieceTypes: visiblePieceTypes(principal, this.#config) }, this.#fieldTypes);
    const json = JSON.stringify(document);
    // 160 bits of SHA-256: the same configuration gives the same tag in every server process.
    return { document, json, digest: createHash('sha256').update(json).digest('base64url').slice(0, 27) };
  }
}
