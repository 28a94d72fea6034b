import assert from 'node:assert/strict';
import { afterEach, beforeEach } from 'node:test';
import type { Mode } from '../../src/core/ids.js';
import { ConflictError } from '../../src/errors/app-error.js';
import type { DocumentIndex, IndexValue, SearchTexts, StorageAdapter, StoredDocument } from '../../src/storage/storage-adapter.js';

export interface DocSpec extends Partial<StoredDocument> {
  docId: string;
  /** Default `en`; `null` (with mode `null`) makes a non-localized document. */
  locale?: string | null;
  mode?: Mode | null;
}

export function makeDoc({ docId, locale = 'en', mode = 'draft', ...properties }: DocSpec): StoredDocument {
  const localization = locale !== null && mode !== null ? { cmsLocale: `${locale}:${mode}`, cmsMode: mode } : {};
  return {
    _id: locale !== null && mode !== null ? `${docId}:${locale}:${mode}` : docId,
    cmsDocId: docId,
    ...localization,
    type: 'article',
    slug: docId,
    title: docId,
    titleSortified: docId,
    archived: false,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    ...properties,
  };
}

export function idsOf(docs: StoredDocument[]): string[] {
  return docs.map((doc) => doc._id);
}

export function docIdsOf(docs: StoredDocument[]): string[] {
  return docs.map((doc) => doc.cmsDocId);
}

export async function assertConflict(promise: Promise<unknown>, constraint: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ConflictError, `expected a ConflictError, got ${String(error)}`);
    assert.equal(error.data.constraint, constraint);
    return true;
  });
}

/** A DocumentIndex with no filter values and no search text. */
/** Where a version is stored: `en` and `draft` unless said (as `makeDoc`). */
export type Place = Pick<DocumentIndex, 'locale' | 'mode'>;

const enDraft: Place = { locale: 'en', mode: 'draft' };

/** The place `makeDoc` gave a document: its locale and mode, null for a non-localized one. */
export function placeOf(doc: StoredDocument): Place {
  if (doc.cmsLocale === undefined) return { locale: null, mode: null };
  const [locale, mode] = doc.cmsLocale.split(':') as [string, Mode];
  return { locale, mode };
}

export function emptyIndex(place: Place = enDraft): DocumentIndex {
  return makeIndex({}, {}, place);
}

/** A DocumentIndex with these values per key and these search texts (the rest empty). */
export function makeIndex(
  values: Readonly<Record<string, readonly IndexValue[]>> = {},
  search: Partial<SearchTexts> = {},
  place: Place = enDraft,
): DocumentIndex {
  return {
    ...place,
    values: Object.entries(values).flatMap(([key, list]) => list.map((value) => ({ key, value }))),
    search: { title: '', high: '', low: '', publicTitle: '', publicHigh: '', publicLow: '', ...search },
  };
}

/** A promise and the function that settles it: a point one transaction waits at for the test. */
export function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

/** Whether `promise` settles within `ms`. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Two adapters on one new, migrated store, as two server processes would have them; `cleanup`
 * runs after both are closed.
 */
export type MakeAdapterPair = () => Promise<{ adapter: StorageAdapter; other: StorageAdapter; cleanup: () => Promise<void> }>;

/** A pair of `makePair` for each test of the suite that calls it, migrated before and closed after. */
export function eachAdapterPair(makePair: MakeAdapterPair): { readonly adapter: StorageAdapter; readonly other: StorageAdapter } {
  let pair: { adapter: StorageAdapter; other: StorageAdapter; cleanup: () => Promise<void> } | undefined;
  beforeEach(async () => {
    pair = await makePair();
    await pair.adapter.migrate();
    await pair.other.migrate();
  });
  afterEach(async () => {
    await pair!.adapter.close();
    await pair!.other.close();
    await pair!.cleanup();
  });
  return {
    get adapter() {
      return pair!.adapter;
    },
    get other() {
      return pair!.other;
    },
  };
}
