import { session } from '../session';

/**
 * What the list keeps per user and type between visits: the columns shown and the last sort
 * (`title`, `-updatedAt`). ONE place to load and save them; kept in localStorage for now, in the
 * shape of the server's preferences (`lists: { [type]: { columns, sort } }`) so this module alone
 * changes when the list reads them from there.
 */
export interface ListPreferences {
  /** The names of the columns shown, in the type's order; absent: the type's columns. */
  readonly columns?: readonly string[];
  readonly sort?: string;
}

function storageKey(type: string): string {
  return `cms.list.${session.user?._id ?? 'anonymous'}.${type}`;
}

function isPreferences(value: unknown): value is ListPreferences {
  if (typeof value !== 'object' || value === null) return false;
  const { columns, sort } = value as Record<string, unknown>;
  const columnsOk = columns === undefined || (Array.isArray(columns) && columns.every((name) => typeof name === 'string'));
  return columnsOk && (sort === undefined || typeof sort === 'string');
}

export function loadListPreferences(type: string): ListPreferences {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(storageKey(type)) ?? '{}');
    return isPreferences(stored) ? stored : {};
  } catch {
    // Unreadable (another version's shape, storage switched off): the type's defaults.
    return {};
  }
}

export function saveListPreferences(type: string, change: ListPreferences): void {
  try {
    localStorage.setItem(storageKey(type), JSON.stringify({ ...loadListPreferences(type), ...change }));
  } catch {
    // Storage full or switched off: the choice lasts while the list stays open.
  }
}
