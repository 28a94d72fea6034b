import { createHash } from 'node:crypto';
import type { AppConfig } from '../../content/app-config.js';
import type { FieldTypeLookup } from '../../content/fields/convert-schema.js';
import { visiblePieceTypes } from '../../content/schema/visible-config.js';
import { roles, type Principal, type Role } from '../../core/principal.js';
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
 * public projection. All are built and serialized at start; requests only pick one.
 */
export class OpenApiAnswers {
  readonly #answers = new Map<Audience, OpenApiAnswer>();

  constructor(config: AppConfig, fieldTypes: FieldTypeLookup) {
    for (const audience of ['anonymous', ...roles] as const) {
      const principal: Principal = { kind: audience === 'anonymous' ? 'anonymous' : 'apiKey', role: audience === 'anonymous' ? null : audience, userId: null, title: null, username: null };
      const document = openApiDocument({ ...config, pieceTypes: visiblePieceTypes(principal, config) }, fieldTypes);
      const json = JSON.stringify(document);
      // 160 bits of SHA-256: the same configuration gives the same tag in every server process.
      this.#answers.set(audience, { document, json, digest: createHash('sha256').update(json).digest('base64url').slice(0, 27) });
    }
  }

  for(principal: Principal): OpenApiAnswer {
    return this.#answers.get(principal.role ?? 'anonymous')!;
  }
}
