import type { DocumentStore, StorageAdapter } from '../../src/storage/storage-adapter.js';

/**
 * A `wrapStorage` for startTestApp that counts `documents.find` on the adapter: an answer from
 * the response cache reads nothing.
 */
export function countFinds(counter: { finds: number }) {
  return (adapter: StorageAdapter): StorageAdapter => {
    const documents: DocumentStore = { ...bindAll(adapter.documents), find: (query) => (counter.finds++, adapter.documents.find(query)) };
    return new Proxy(adapter, { get: (target, prop) => (prop === 'documents' ? documents : bindOne(target, prop)) });
  };
}

function bindOne<T extends object>(target: T, prop: string | symbol) {
  const value = Reflect.get(target, prop, target);
  return typeof value === 'function' ? value.bind(target) : value;
}

function bindAll<T extends object>(target: T): T {
  return Object.fromEntries(Object.keys(target).map((name) => [name, bindOne(target, name)])) as T;
}
