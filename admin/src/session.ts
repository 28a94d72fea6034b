import { computed, reactive, watch } from 'vue';
import { ApiError, request, setCsrfToken } from './api/client';
import type { PieceTypeSchema, Schema, ServedSchema, SignedInUser } from './api/types';
import { builtInText, currentLanguage, i18n } from './i18n';
import { inLanguage } from './i18n/configured-text';
import { closeLiveEvents } from './live/live-events';
import { forgetPreferences, loadPreferences } from './preferences/preferences';

/**
 * Who is signed in and what they may see (the schema is per role), shared by every screen.
 * Both come from one round trip of parallel requests when the admin opens (with the user's
 * preferences, preferences/preferences.ts).
 */
export const session = reactive({
  user: undefined as SignedInUser | undefined,
  schema: undefined as Schema | undefined,
  /** The locale the editor works in; screens read it from here and the shell's switcher sets it. */
  locale: '',
  loaded: false,
});

/** The schema as the server sent it; `session.schema` is it in the interface language. */
let servedSchema: ServedSchema | undefined;
watch(i18n.global.locale, () => {
  if (servedSchema) session.schema = inLanguage(servedSchema, currentLanguage(), builtInText);
});

/**
 * Whether the signed-in role manages users (admins only). `whoami` answers the role only where
 * `login.whoamiFields` asks for it, as the original's does, so this reads what the schema says
 * the role may do with the user type.
 */
export const isAdmin = computed(() => session.user !== undefined && pieceType('@cms/user')?.can.edit === true);

/** Whoever may publish some type works with releases (the Releases screen, "Add to release"). */
export const mayRelease = computed(() => Object.values(session.schema?.types ?? {}).some((type) => type.can.publish));

/** Piece types the admin lists: those the role may read with drafts, users and media kept apart. */
export const editableTypes = computed(() =>
  Object.entries(session.schema?.types ?? {})
    .filter(([name, type]) => type.can.viewDrafts && !name.startsWith('@cms/'))
    .map(([name, type]) => ({ name, ...type })),
);

export function pieceType(name: string): PieceTypeSchema | undefined {
  return session.schema?.types[name];
}

/** A locale's label ("Español"), or its name when the schema has no label for it. */
export function localeLabel(name: string): string {
  return session.schema?.locales.find((locale) => locale.name === name)?.label ?? name;
}

function defaultLocale(schema: Schema): string {
  return (schema.locales.find((locale) => locale.default) ?? schema.locales[0])?.name ?? 'en';
}

async function whoami(): Promise<SignedInUser | undefined> {
  try {
    return await request<SignedInUser>('/@cms/login/whoami');
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** Loads (or reloads) the signed-in user and the schema their role sees. */
export async function loadSession(): Promise<void> {
  // The preferences follow whoami (no one signed in has any), while the schema loads.
  const signedIn = whoami().then(async (found) => {
    if (found) await loadPreferences();
    else forgetPreferences();
    return found;
  });
  const [user, served] = await Promise.all([signedIn, request<ServedSchema>('/@cms/schema')]);
  servedSchema = served;
  const schema = inLanguage(served, currentLanguage(), builtInText);
  session.user = user;
  session.schema = schema;
  setCsrfToken(user?.csrfToken);
  const known = schema.locales.some((locale) => locale.name === session.locale);
  if (!known) session.locale = defaultLocale(schema);
  session.loaded = true;
}

/** `code`: the TOTP code (6 digits) or a recovery code, once the server answered `totp-required`. */
export async function signIn(username: string, password: string, code?: string): Promise<void> {
  const second = code === undefined ? {} : /^\d{6}$/.test(code) ? { totp: code } : { recoveryCode: code };
  const { csrfToken } = await request<{ csrfToken: string }>('/@cms/login/login', {
    method: 'POST',
    body: { username, password, session: true, ...second },
  });
  setCsrfToken(csrfToken);
  await loadSession();
}

export async function signOut(): Promise<void> {
  try {
    await request<void>('/@cms/login/logout', { method: 'POST' });
  } finally {
    setCsrfToken(undefined);
    session.user = undefined;
    closeLiveEvents();
    await loadSession();
  }
}

/** First run: is a setup code needed to create the first admin? */
export async function setupNeeded(): Promise<boolean> {
  const { needed } = await request<{ needed: boolean }>('/@cms/setup');
  return needed;
}

export async function createFirstAdmin(input: { code: string; username: string; password: string; title?: string; email?: string }) {
  await request<unknown>('/@cms/setup', { method: 'POST', body: input });
  await signIn(input.username, input.password);
}
