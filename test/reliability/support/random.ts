import { mulberry32 } from '../../../src/domain/random.ts';
// One seed per run (RELIABILITY_SEED, or a new one, printed), so a failing run can be replayed.
export const seed = process.env.RELIABILITY_SEED ? Number(process.env.RELIABILITY_SEED) : Math.floor(Math.random() * 2 ** 31);

/** Seeded (mulberry32): good enough to pick targets and moments, and replayable. */
export function rng(s: number) {
  const next = mulberry32(s);
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}
