import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import type { AppConfig } from '../app-config.js';
import type { Principal } from '../../core/principal.js';
import type { StorageAdapter } from '../../storage/storage-adapter.js';
import { ForbiddenError, InvalidRequestError, PayloadTooLargeError } from '../../errors/app-error.js';
import { pointerToKeyPath } from '../../config/schema-check.js';
import { maxPerPage } from '../documents/operations/list.js';

export const themes = ['system', 'light', 'dark'] as const;

/** `en`, `pt-BR`, `zh-Hant-TW`: a BCP 47 language tag, loosely. */
const languagePattern = '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$';
const languageLength = 16;

/** One list's own settings; each key a save leaves out is kept. */
function listSchema(config: AppConfig) {
  const name = Type.String({ minLength: 1, maxLength: config.limits.preferencesNameLength });
  return Type.Object(
    {
      columns: Type.Optional(Type.Array(name, { maxItems: config.limits.preferencesListColumns, uniqueItems: true })),
      sort: Type.Optional(name),
      perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPerPage })),
    },
    { additionalProperties: false },
  );
}

/** What a PATCH may send: any of the keys; in `lists`, a type's entry merges into the stored one and `null` removes it. */
function patchSchema(config: AppConfig) {
  return Type.Object(
    {
      theme: Type.Optional(Type.Union(themes.map((theme) => Type.Literal(theme)), { errorMessage: `must be one of ${themes.join(', ')}` })),
      language: Type.Optional(
        Type.Union([Type.String({ pattern: languagePattern, maxLength: languageLength }), Type.Null()], {
          errorMessage: `must be a language code such as en or pt-BR (at most ${languageLength} characters), or null`,
        }),
      ),
      lists: Type.Optional(Type.Record(Type.String(), Type.Union([listSchema(config), Type.Null()]), { maxProperties: config.limits.preferencesListTypes })),
    },
    { additionalProperties: false },
  );
}

type PatchSchema = ReturnType<typeof patchSchema>;
export type PreferencesPatch = Static<PatchSchema>;
export type ListPreferences = Static<ReturnType<typeof listSchema>>;

/** A user's preferences, whole: what GET and PATCH answer. */
export interface Preferences {
  readonly theme: (typeof themes)[number];
  readonly language: string | null;
  readonly lists: Readonly<Record<string, ListPreferences>>;
}

const defaults: Preferences = Object.freeze({ theme: 'system', language: null, lists: Object.freeze({}) });

/**
 * Each signed-in user's admin preferences (issue 35): the theme, the admin's language and, per
 * piece type, the list's columns, sort and page size. Users only: an API key or an anonymous
 * caller has no one to keep them for (403, as presence).
 */
export class UserPreferences {
  readonly #config: AppConfig;
  readonly #storage: Pick<StorageAdapter, 'preferences' | 'transaction'>;
  readonly #patchSchema: PatchSchema;

  constructor(config: AppConfig, storage: Pick<StorageAdapter, 'preferences' | 'transaction'>) {
    this.#config = config;
    this.#storage = storage;
    this.#patchSchema = patchSchema(config);
  }

  async read(principal: Principal): Promise<Preferences> {
    const stored = await this.#storage.preferences.get(preferencesUser(principal));
    return stored === null ? defaults : withDefaults(JSON.parse(stored.json) as Partial<Preferences>);
  }

  /** Merges `body` (validated whole before anything is read) into the caller's preferences; answers them all. */
  async update(principal: Principal, body: unknown): Promise<Preferences> {
    const userId = preferencesUser(principal);
    const patch = this.#validPatch(body);
    return this.#storage.transaction(async (tx) => {
      const stored = await tx.preferences.get(userId);
      const merged = merge(stored === null ? defaults : withDefaults(JSON.parse(stored.json) as Partial<Preferences>), patch);
      if (Object.keys(merged.lists).length > this.#config.limits.preferencesListTypes) {
        throw new InvalidRequestError(`At most ${this.#config.limits.preferencesListTypes} types may have list preferences (limits.preferencesListTypes)`, {
          path: 'lists',
          limit: 'preferencesListTypes',
        });
      }
      const json = JSON.stringify(merged);
      const bytes = Buffer.byteLength(json);
      if (bytes > this.#config.limits.preferencesBytes) {
        throw new PayloadTooLargeError(`Preferences may take at most ${this.#config.limits.preferencesBytes} bytes as JSON (limits.preferencesBytes)`, {
          limit: 'preferencesBytes',
          bytes,
        });
      }
      await tx.preferences.put({ userId, json, updatedAt: new Date().toISOString() });
      return merged;
    });
  }

  #validPatch(body: unknown): PreferencesPatch {
    checkShape(this.#patchSchema, body);
    const patch = body as PreferencesPatch;
    for (const typeName of Object.keys(patch.lists ?? {})) {
      if (!this.#config.pieceTypes.has(typeName)) throw new InvalidRequestError(`No piece type "${typeName}"`, { path: `lists.${typeName}` });
    }
    return patch;
  }
}

function preferencesUser(principal: Principal): string {
  if (principal.kind !== 'user' || principal.userId === null) throw new ForbiddenError('Preferences are for signed-in users');
  return principal.userId;
}

/** Refuses the first mismatch with 400, naming where it is. */
function checkShape(schema: TSchema, body: unknown): void {
  const found = Value.Errors(schema, body).First();
  if (found === undefined) return;
  const first = deepest(found);
  const path = pointerToKeyPath(first.path);
  if (first.type === ValueErrorType.ObjectAdditionalProperties) throw new InvalidRequestError(`Unknown key ${path} in preferences`, { path });
  const custom = (first.schema as { errorMessage?: unknown }).errorMessage;
  throw new InvalidRequestError(`${path || 'The preferences'} ${typeof custom === 'string' ? custom : first.message.replace(/^Expected/, 'expected')}`, { path });
}

/** Of a union's mismatch, the one inside a variant, when it says more precisely where (a list entry's own key, not the entry). */
function deepest(error: ValueError): ValueError {
  if (error.type !== ValueErrorType.Union) return error;
  const inner = error.errors.map((variant) => variant.First()).filter((found) => found !== undefined && found.path.length > error.path.length);
  return inner[0] === undefined ? error : deepest(inner[0]);
}

/** A stored object read back: keys it lacks (saved by an older server) take their default. */
function withDefaults(stored: Partial<Preferences>): Preferences {
  return { theme: stored.theme ?? defaults.theme, language: stored.language ?? defaults.language, lists: stored.lists ?? defaults.lists };
}

function merge(current: Preferences, patch: PreferencesPatch): Preferences {
  const lists = new Map(Object.entries(current.lists));
  for (const [typeName, entry] of Object.entries(patch.lists ?? {})) {
    if (entry === null) lists.delete(typeName);
    else lists.set(typeName, { ...lists.get(typeName), ...entry });
  }
  return {
    theme: patch.theme ?? current.theme,
    language: patch.language === undefined ? current.language : patch.language,
    lists: Object.fromEntries(lists),
  };
}
