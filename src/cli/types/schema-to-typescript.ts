/**
 * A JSON Schema 2020-12 value as OpenAPI 3.1 components use it. Only the keywords read below
 * matter; the rest (validation bounds, formats beyond a doc tag) have no TypeScript counterpart.
 */
export type JsonSchema = boolean | JsonSchemaObject;

export interface JsonSchemaObject {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: JsonSchema;
  readonly patternProperties?: Readonly<Record<string, JsonSchema>>;
  readonly items?: JsonSchema;
  readonly prefixItems?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly anyOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly title?: string;
  readonly description?: string;
  readonly format?: string;
  readonly readOnly?: boolean;
  readonly deprecated?: boolean;
  readonly [keyword: string]: unknown;
}

/** Turns a `$ref` into the name of the declaration it points at. */
export type RefResolver = (ref: string) => string;

const indentUnit = '  ';
const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as TypeScript accepts it: bare when it is an identifier, else quoted. */
export function propertyKey(name: string): string {
  return identifier.test(name) ? name : JSON.stringify(name);
}

/**
 * A `/** … *\/` block from a schema's title, description, format and deprecation, or nothing
 * when it has none. `*\/` inside the text is broken up so a label cannot end the comment.
 */
export function docComment(schema: JsonSchema, indent: string): string {
  if (typeof schema !== 'object') return '';
  const lines: string[] = [];
  for (const text of [schema.title, schema.description]) {
    if (typeof text === 'string' && text.trim() !== '' && !lines.includes(text.trim())) lines.push(...text.trim().split(/\r?\n/));
  }
  if (typeof schema.format === 'string') lines.push(`@format ${schema.format}`);
  if (schema.deprecated === true) lines.push('@deprecated');
  if (lines.length === 0) return '';
  const safe = lines.map((line) => line.replace(/\*\//g, '*\\/'));
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${safe.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

function literal(value: unknown): string {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value) ? JSON.stringify(value) : 'unknown';
}

/**
 * Whether a type expression is a union or intersection at its top level (outside brackets and
 * string literals), so it needs parentheses inside `[]` or another operator.
 */
function isCompound(type: string): boolean {
  let depth = 0;
  for (let index = 0; index < type.length; index += 1) {
    const char = type[index]!;
    if (char === '"') {
      // JSON.stringify wrote it: skip to the closing quote, over escapes.
      for (index += 1; index < type.length && type[index] !== '"'; index += 1) if (type[index] === '\\') index += 1;
    } else if ('{[(<'.includes(char)) depth += 1;
    else if ('}])>'.includes(char)) depth -= 1;
    else if (depth === 0 && (char === '|' || char === '&')) return true;
  }
  return false;
}

/**
 * Members joined by `|` or `&`. `&` binds tighter than `|`, so only the members of an
 * intersection need parentheses.
 */
function joinTypes(types: readonly string[], operator: '|' | '&'): string {
  const unique = [...new Set(types)];
  if (unique.length === 0) return operator === '|' ? 'never' : 'unknown';
  if (unique.length === 1) return unique[0]!;
  return unique.map((type) => (operator === '&' && isCompound(type) ? `(${type})` : type)).join(` ${operator} `);
}

/** `T[]`, parenthesizing a union or intersection. */
function arrayOf(type: string): string {
  return isCompound(type) ? `(${type})[]` : `${type}[]`;
}

/** The TypeScript type of a schema value, nested declarations indented from `indent`. */
export function typeOf(schema: JsonSchema, resolve: RefResolver, indent = ''): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (schema.$ref !== undefined) return resolve(schema.$ref);
  const parts: string[] = [];
  const own = ownType(schema, resolve, indent);
  if (own !== null) parts.push(own);
  if (schema.oneOf) parts.push(joinTypes(schema.oneOf.map((member) => typeOf(member, resolve, indent)), '|'));
  if (schema.anyOf) parts.push(joinTypes(schema.anyOf.map((member) => typeOf(member, resolve, indent)), '|'));
  if (schema.allOf) parts.push(...schema.allOf.map((member) => typeOf(member, resolve, indent)));
  return parts.length === 0 ? 'unknown' : joinTypes(parts, '&');
}

/** The type the schema's own keywords (`const`, `enum`, `type`, `properties`, …) give, or null. */
function ownType(schema: JsonSchemaObject, resolve: RefResolver, indent: string): string | null {
  if ('const' in schema) return literal(schema.const);
  if (schema.enum) return joinTypes(schema.enum.map(literal), '|');
  const types = schema.type === undefined ? impliedTypes(schema) : typeof schema.type === 'string' ? [schema.type] : schema.type;
  if (types.length === 0) return null;
  return joinTypes(
    types.map((type) => primitiveType(type) ?? (type === 'array' ? arrayType(schema, resolve, indent) : objectType(schema, resolve, indent))),
    '|',
  );
}

/** Schemas that leave `type` out but describe an object or an array by their other keywords. */
function impliedTypes(schema: JsonSchemaObject): string[] {
  if (schema.properties || schema.additionalProperties !== undefined || schema.patternProperties) return ['object'];
  if (schema.items !== undefined || schema.prefixItems) return ['array'];
  return [];
}

function primitiveType(type: string): string | null {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
    case 'object':
      return null;
    default:
      return 'unknown';
  }
}

function arrayType(schema: JsonSchemaObject, resolve: RefResolver, indent: string): string {
  const rest = schema.items === undefined || schema.items === true ? 'unknown' : typeOf(schema.items, resolve, indent);
  if (!schema.prefixItems) return arrayOf(rest);
  const leading = schema.prefixItems.map((item) => typeOf(item, resolve, indent));
  return schema.items === false ? `[${leading.join(', ')}]` : `[${[...leading, `...${arrayOf(rest)}`].join(', ')}]`;
}

/**
 * An object literal type. A schema that names its properties and says nothing of others is
 * closed (no index signature), so a misspelt property is a compile error; an index signature
 * comes only from `additionalProperties` or `patternProperties`, and is `unknown` beside named
 * properties, which it could otherwise contradict.
 */
export function objectType(schema: JsonSchemaObject, resolve: RefResolver, indent: string, options: { readonly?: boolean } = {}): string {
  const inner = indent + indentUnit;
  const required = new Set(schema.required ?? []);
  const members = Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const readonly = options.readonly || (typeof property === 'object' && property.readOnly === true) ? 'readonly ' : '';
    const optional = required.has(name) ? '' : '?';
    return `${docComment(property, inner)}${inner}${readonly}${propertyKey(name)}${optional}: ${typeOf(property, resolve, inner)};\n`;
  });
  const extra = extraPropertiesType(schema, resolve, inner);
  if (extra !== null) members.push(`${inner}[key: string]: ${members.length > 0 ? 'unknown' : extra};\n`);
  // `{}` would accept any value but null: an object that may hold nothing is written so.
  if (members.length === 0) members.push(`${inner}[key: string]: never;\n`);
  return `{\n${members.join('')}${indent}}`;
}

/** The type of properties the schema does not name, or null when it allows none. */
function extraPropertiesType(schema: JsonSchemaObject, resolve: RefResolver, indent: string): string | null {
  const extra: string[] = [];
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) extra.push(typeOf(schema.additionalProperties, resolve, indent));
  for (const pattern of Object.values(schema.patternProperties ?? {})) extra.push(typeOf(pattern, resolve, indent));
  // `{ type: "object" }` alone says nothing of its properties: any object.
  if (extra.length === 0 && !schema.properties && schema.additionalProperties === undefined && !schema.patternProperties) return 'unknown';
  return extra.length === 0 ? null : joinTypes(extra, '|');
}
