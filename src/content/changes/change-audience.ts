import type { AppConfig } from '../app-config.js';
import type { LoggedChange } from '../../storage/storage-adapter.js';
import type { Principal } from '../../core/principal.js';
import type { PresenceAnnouncement } from '../presence/presence-board.js';
import { InvalidRequestError } from '../../errors/app-error.js';
import { canAccessApi, canReadType, canViewDrafts, visibleValues } from '../access/permissions.js';

/** What a change stream announces of one change (the `data:` of its event). */
export interface ChangeAnnouncement {
  readonly type: string;
  readonly _id: string;
  readonly cmsDocId: string;
  readonly cmsLocale: string | null;
  readonly cmsMode: string | null;
  readonly updatedAt: string | null;
  readonly updatedBy?: unknown;
}

/** The narrowing a stream asks for (`?type=`, `?cmsLocale=`, `?cmsMode=`, `?_id=`): each a list of values, all together. */
export interface ChangeFilter {
  readonly types?: ReadonlySet<string>;
  readonly locales?: ReadonlySet<string>;
  readonly modes?: ReadonlySet<string>;
  /** Version `_id`s or `cmsDocId`s. */
  readonly ids?: ReadonlySet<string>;
}

const filterKeys: Readonly<Record<string, keyof ChangeFilter>> = { type: 'types', cmsLocale: 'locales', cmsMode: 'modes', _id: 'ids' };

/** The stream's filters from its query: each a value or several (repeated, or comma-separated); anything else is a 400. */
export function parseChangeFilter(query: Readonly<Record<string, unknown>>): ChangeFilter {
  const filter: Partial<Record<keyof ChangeFilter, Set<string>>> = {};
  for (const [name, value] of Object.entries(query)) {
    if (name === 'apikey' || name === 'apiKey' || name === 'lastEventId' || name === 'presence') continue;
    const key = filterKeys[name];
    if (!key) throw new InvalidRequestError(`Unknown parameter "${name}": the event stream takes type, cmsLocale, cmsMode, _id, presence and lastEventId`, { parameter: name });
    const values = (Array.isArray(value) ? value : [value]).flatMap((one) => (typeof one === 'string' ? one.split(',') : [undefined]));
    if (values.some((one) => one === undefined || one === '')) throw new InvalidRequestError(`"${name}" must name values`, { parameter: name });
    filter[key] = new Set(values as string[]);
  }
  return filter;
}

/**
 * Who may hear of which change: exactly who may read the version it left (or, for a delete or an
 * archive, the version as it was): its type readable by the caller, drafts only for those who
 * may read them, anonymous callers only published versions of types with a public projection,
 * visible ones only, never an archived one (but its archive: the version leaves their view).
 * The announcement shows `updatedBy` only to callers with API access or a projection naming it.
 * Worked out per type once per stream, so an event costs a lookup per stream.
 */
export class ChangeAudience {
  readonly #config: AppConfig;
  readonly #principal: Principal;
  readonly #filter: ChangeFilter;
  readonly #types = new Map<string, { drafts: boolean; updatedBy: boolean } | null>();
  readonly #visible: readonly string[] | undefined;
  #readable: ReadonlySet<string> | undefined;

  constructor(config: AppConfig, principal: Principal, filter: ChangeFilter) {
    this.#config = config;
    this.#principal = principal;
    this.#filter = filter;
    this.#visible = visibleValues(principal);
  }

  /** The types this caller may hear of within its filters: the feed hands it no change of another. */
  get types(): ReadonlySet<string> {
    this.#readable ??= new Set(
      [...this.#config.pieceTypes.keys()].filter((name) => (!this.#filter.types || this.#filter.types.has(name)) && this.#rightsOn(name) !== null),
    );
    return this.#readable;
  }

  /** The announcement of `change` for this caller, or null when it may not hear of it or its filters leave it out. */
  announce(change: LoggedChange): ChangeAnnouncement | null {
    if (!this.#passes(change)) return null;
    const rights = this.#rightsOn(change.type);
    if (!rights) return null;
    if (change.mode === 'draft' && !rights.drafts) return null;
    if (this.#visible && !this.#visible.includes(change.visibility)) return null;
    if (change.archived && change.action !== 'archive' && !rights.drafts) return null;
    const announcement: ChangeAnnouncement = {
      type: change.type,
      _id: change.id,
      cmsDocId: change.docId,
      cmsLocale: change.locale,
      cmsMode: change.mode,
      updatedAt: change.updatedAt,
    };
    return rights.updatedBy ? { ...announcement, updatedBy: change.updatedBy } : announcement;
  }

  /** Whether this caller hears who is on the document: those who may read its drafts, within the stream's filters. */
  hearsPresence(announcement: PresenceAnnouncement): boolean {
    const { types, locales, ids } = this.#filter;
    if (types && !types.has(announcement.type)) return false;
    if (locales && (announcement.cmsLocale === null || !locales.has(announcement.cmsLocale))) return false;
    if (ids && !ids.has(announcement.cmsDocId)) return false;
    return this.#rightsOn(announcement.type)?.drafts === true;
  }

  #passes(change: LoggedChange): boolean {
    const { types, locales, modes, ids } = this.#filter;
    if (types && !types.has(change.type)) return false;
    if (locales && (change.locale === null || !locales.has(change.locale))) return false;
    if (modes && (change.mode === null || !modes.has(change.mode))) return false;
    return !ids || ids.has(change.id) || ids.has(change.docId);
  }

  #rightsOn(typeName: string): { drafts: boolean; updatedBy: boolean } | null {
    if (this.#types.has(typeName)) return this.#types.get(typeName)!;
    const type = this.#config.pieceTypes.get(typeName);
    const full = type !== undefined && canAccessApi(this.#principal, type);
    const rights = type && canReadType(this.#principal, type)
      ? { drafts: canViewDrafts(this.#principal, type), updatedBy: full || type.options.publicApiProjection?.updatedBy !== undefined }
      : null;
    this.#types.set(typeName, rights);
    return rights;
  }
}
