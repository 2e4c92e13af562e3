/** A small seeded generator (mulberry32): generated test cases that a printed seed reproduces. */
export function seededRandom(seed: number): { next(): number; int(n: number): number; pick<T>(items: readonly T[]): T } {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (items) => items[int(items.length)] };
}
