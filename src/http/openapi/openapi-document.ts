import type { AppConfig } from '../../content/app-config.js';
import type { FieldTypeLookup } from '../../content/fields/convert-schema.js';
import type { JsonSchema } from '../../content/fields/value-schema.js';
import { createFieldTypeRegistry } from '../../content/fields/registry.js';
import { anyDocumentComponent, DocumentSchemas } from './document-schemas.js';
import { errorSchema, fieldErrorSchema, securitySchemes, sharedErrorResponses } from './operations.js';
import { anyPageComponent, anyPageSchema, listComponents, piecePaths, sharedParameters } from './piece-paths.js';
import { fixedComponents, fixedPaths } from './fixed-paths.js';
import { webhookComponents, webhookPaths } from './webhook-paths.js';
import { auditComponents, auditPaths } from './audit-paths.js';
import { eventPaths } from './event-paths.js';
import { syncComponents, syncPaths } from './sync-paths.js';
import { mcpPaths } from './mcp-paths.js';
import { presencePaths } from './presence-paths.js';
import { preferencesPaths } from './preferences-paths.js';
import { accountPaths } from './account-paths.js';
import { releasePaths } from './release-paths.js';
import { dashboardComponents, dashboardPaths } from './dashboard-paths.js';
import { reviewPaths } from './review-paths.js';
import { schemaAnswerComponents } from './schema-answer.js';

/** An OpenAPI 3.1 document, as plain JSON. */
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: { readonly title: string; readonly version: string; readonly description?: string };
  readonly jsonSchemaDialect: string;
  readonly servers: readonly { readonly url: string }[];
  readonly tags: readonly { readonly name: string; readonly description?: string }[];
  readonly paths: Record<string, Record<string, Record<string, unknown>>>;
  readonly components: {
    readonly schemas: Record<string, JsonSchema>;
    readonly responses: Record<string, unknown>;
    readonly parameters: Record<string, unknown>;
    readonly securitySchemes: Record<string, unknown>;
  };
}

const description =
  'The REST interface of this CMS for the configured piece types. Every piece type has the same routes under ' +
  '`/api/v1/<type>`; its documents are described as `<Type>` (what GET answers callers with API access), ' +
  '`<Type>Public` (the public projection anonymous callers see), `<Type>Input` (what POST and PUT take) and ' +
  '`<Type>Patch` (what PATCH takes). Every refusal is `{ name, message, data }`.';

/**
 * The OpenAPI 3.1 document of a configuration: every route of every piece type, the media,
 * login and setup routes, each type's document schemas (from its field types' `valueSchemas`),
 * the error shape and the auth schemes. Built once at start; the same configuration always
 * gives the same document.
 */
export function openApiDocument(config: AppConfig, fieldTypes: FieldTypeLookup = createFieldTypeRegistry()): OpenApiDocument {
  const fixedComponentSchemas = {
    Error: errorSchema,
    FieldError: fieldErrorSchema,
    ...fixedComponents,
    ...schemaAnswerComponents,
    ...webhookComponents,
    ...auditComponents,
    ...dashboardComponents,
    ...syncComponents,
    [anyPageComponent]: anyPageSchema,
  };
  // No piece or widget type may take these names, nor that of a document of any type.
  const fixedNames = [...Object.keys(fixedComponentSchemas), anyDocumentComponent];
  const schemas = new DocumentSchemas(config, fieldTypes, new Set(fixedNames));
  return {
    openapi: '3.1.0',
    info: { title: 'CMS REST interface', version: '1', description },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    // Relative without a configured baseUrl: the document is served by the server it describes.
    servers: [{ url: config.baseUrl ? config.baseUrl : '/' }],
    tags: [...config.pieceTypes.values()].map((type) => ({ name: type.name, description: `${type.options.pluralLabel} (\`${type.name}\`)` })),
    paths: { ...piecePaths(config, fieldTypes, schemas), ...fixedPaths(), ...webhookPaths(), ...auditPaths(), ...eventPaths(), ...mcpPaths(), ...syncPaths(config, fieldTypes, schemas), ...presencePaths(), ...preferencesPaths(config), ...releasePaths(config), ...dashboardPaths(), ...reviewPaths(config, schemas), ...accountPaths(config) },
    components: {
      schemas: {
        ...fixedComponentSchemas,
        ...schemas.components(),
        ...listComponents(config, schemas),
      },
      responses: sharedErrorResponses(),
      parameters: sharedParameters,
      securitySchemes,
    },
  };
}
