import type { SessionStore } from '../../src/core/ports/sessionStore';

/**
 * The store with every call to one of its methods counted by name (only names `which` matches,
 * when given), so a test can say how often a read reached the store.
 */
export function countingStore(store: SessionStore, which?: RegExp): { store: SessionStore; reads: Record<string, number> } {
  const reads: Record<string, number> = {};
  const counted = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof property === 'string' && (!which || which.test(property))) reads[property] = (reads[property] ?? 0) + 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: counted, reads };
}
