// Deterministic randomness: mulberry32, a tiny 32-bit PRNG. Good enough for demo data and
// identical across Node versions, unlike Math.random.
export const SEED = 0x5eed_2024;
export const PROFILE_COUNT = 300;

export type Rng = () => number;

export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

/** A second pick that differs from `not`, so sentences never repeat the same topic twice. */
export function pickOther<T>(rng: Rng, items: readonly T[], not: T): T {
  const rest = items.filter((x) => x !== not);
  return pick(rng, rest.length > 0 ? rest : items);
}

export function chance(rng: Rng, p: number): boolean {
  return rng() < p;
}
