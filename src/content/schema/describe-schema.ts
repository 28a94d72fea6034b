import { createHash } from 'node:crypto';
import type { AppConfig } from '../app-config.js';
import type { SanitizedField, SanitizedPieceType } from '../types/piece-type.js';
import type { SanitizedWidgetType } from '../types/sanitize.js';
import type { Principal, Role } from '../../core/principal.js';
import { canAccessApi, canPublish, canViewDrafts, canWrite } from '../access/permissions.js';
import { visiblePieceTypes } from './visible-config.js';
import { projectionGoverns } from '../query/projection.js';
import { describeField, widgetsUsedBy, type FieldDescription } from './describe-field.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';

/** The schema answer, serialized once, with a digest of its bytes for `ETag`. */
export interface DescribedSchema {
  readonly json: string;
  readonly digest: string;
}

export type SchemaConfig = Pick<AppConfig, 'pieceTypes' | 'widgetTypes' | 'locales' | 'defaultLocale'>;

/** Properties the service writes on every document: sorting by them tells a public caller nothing hidden. */
const timestamps = new Set(['createdAt', 'updatedAt']);

/**
 * `GET /api/v1/@cms/schema`: the locales, the widget types and every piece type the caller may
 * read, with its fields and what the caller may do with it. Callers without API access to a type
 * see only the fields of its public projection and nothing about drafts; widget types are those
 * the described areas accept. Permissions depend on the role alone and the configuration is
 * frozen, so each role's answer is built and serialized once.
 */
export class SchemaDescriber {
  readonly #config: SchemaConfig;
  readonly #allWidgets: readonly string[];
  readonly #fieldTypes: FieldTypeLookup;
  readonly #answers = new Map<Role | 'anonymous', DescribedSchema>();

  constructor(config: SchemaConfig, fieldTypes: FieldTypeLookup) {
    this.#config = config;
    this.#fieldTypes = fieldTypes;
    this.#allWidgets = [...config.widgetTypes.keys()];
  }

  describe(principal: Principal): DescribedSchema {
    const key = principal.role ?? 'anonymous';
    let answer = this.#answers.get(key);
    if (!answer) {
      const json = JSON.stringify(this.#build(principal));
      // 160 bits of SHA-256: the same configuration gives the same tag in every server process.
      answer = { json, digest: createHash('sha256').update(json).digest('base64url').slice(0, 27) };
      this.#answers.set(key, answer);
    }
    return answer;
  }

  #build(principal: Principal) {
    const visible = [...visiblePieceTypes(principal, this.#config).values()].map((type) => ({ type, fields: type.fields }));
    return {
      locales: this.#locales(),
      widgets: this.#widgets(visible.flatMap((entry) => entry.fields)),
      types: Object.fromEntries(visible.map(({ type, fields }) => [type.name, this.#describeType(principal, type, fields)])),
    };
  }

  #locales() {
    return [...this.#config.locales].map(([name, locale]) => ({
      name,
      label: locale.label,
      prefix: locale.prefix,
      default: name === this.#config.defaultLocale,
      fallbacks: [...locale.fallbacks],
    }));
  }

  /** The widget types reachable from the described fields, through the areas of widgets too. */
  #widgets(fields: readonly SanitizedField[]): Record<string, { label: string; fields: FieldDescription[] }> {
    const reached = new Map<string, SanitizedWidgetType>();
    for (let pending = widgetsUsedBy(fields, this.#allWidgets, this.#fieldTypes); pending.size > 0; ) {
      const next = new Set<string>();
      for (const name of pending) {
        const widget = this.#config.widgetTypes.get(name);
        if (!widget || reached.has(name)) continue;
        reached.set(name, widget);
        for (const more of widgetsUsedBy(widget.fields, this.#allWidgets, this.#fieldTypes)) next.add(more);
      }
      pending = next;
    }
    const described = [...reached].map(([name, widget]) => [name, { label: widgetLabel(name), fields: this.#fields(widget.fields) }]);
    return Object.fromEntries(described);
  }

  #describeType(principal: Principal, type: SanitizedPieceType, fields: readonly SanitizedField[]) {
    const { options } = type;
    const full = canAccessApi(principal, type);
    return {
      label: options.labelText,
      pluralLabel: options.pluralLabelText,
      localized: options.localized,
      perPage: options.perPage,
      sort: full ? options.sort : publicSort(type),
      ...(options.pagePath !== null && { pagePath: options.pagePath }),
      // How drafts are saved and what the public sees are for callers who work on the type.
      ...(full && { autopublish: options.autopublish }),
      // Whether, never how: the URL may be a function, and is computed by `POST …/preview-url`.
      ...(full && options.preview !== null && { preview: true }),
      ...(full && options.publicApiProjection !== null && { publicProjection: options.publicApiProjection }),
      fields: this.#fields(fields),
      can: abilities(principal, type),
    };
  }

  #fields(fields: readonly SanitizedField[]): FieldDescription[] {
    return fields.map((field) => describeField(field, this.#allWidgets));
  }
}

/**
 * What the caller may do with the type, by the rules the service enforces. `create`, `edit` and
 * `delete` are about drafts (published versions also need `publish`).
 */
function abilities(principal: Principal, type: SanitizedPieceType) {
  const writes = canWrite(principal, type, 'draft');
  return {
    read: true,
    viewDrafts: canViewDrafts(principal, type),
    create: writes,
    edit: writes,
    publish: canPublish(principal, type),
    delete: writes,
  };
}

/** The sort order without properties the public projection hides. */
function publicSort(type: SanitizedPieceType): Record<string, 1 | -1> {
  const projection = type.options.publicApiProjection ?? {};
  const shown = Object.entries(type.options.sort).filter(([key]) => timestamps.has(key) || projectionGoverns(projection, key));
  return Object.fromEntries(shown);
}

/** `@cms/rich-text` -> `Rich Text`, `quote` -> `Quote`: widget types have no configured label. */
function widgetLabel(name: string): string {
  const words = name.replace(/^@cms\//, '').split('-');
  return words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(' ');
}
