function refuseMutation(): never {
  throw new TypeError('This configuration value is frozen');
}

/** Object.freeze does not stop Map.set or Set.add, so the mutators are shadowed before freezing. */
function lockCollection(collection: Map<unknown, unknown> | Set<unknown>): void {
  const mutators = collection instanceof Map ? ['set', 'delete', 'clear'] : ['add', 'delete', 'clear'];
  for (const name of mutators) {
    Object.defineProperty(collection, name, { value: refuseMutation, enumerable: false });
  }
}

/** Freezes a value and everything reachable from it: plain objects, arrays, maps and sets. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) {
    return value;
  }
  if (value instanceof Map) {
    for (const [key, item] of value) {
      deepFreeze(key);
      deepFreeze(item);
    }
    lockCollection(value);
  } else if (value instanceof Set) {
    for (const item of value) {
      deepFreeze(item);
    }
    lockCollection(value);
  } else {
    for (const item of Object.values(value)) {
      deepFreeze(item);
    }
  }
  return Object.freeze(value);
}
