// When a failed webhook delivery is tried again: about 30 s, 2 min, 10 min, 1 h, 6 h,
// then every 12 h, for about 3 days in all; after the last attempt the delivery is dead. Each delay
// gets ±10 % jitter so that deliveries failing together (a receiver down) do not retry in step.

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

/** Delay after the 1st, 2nd, … failure. Its length is the number of retries; 11 attempts in all. */
export const defaultRetrySchedule: readonly number[] = [
  30 * second,
  2 * minute,
  10 * minute,
  1 * hour,
  6 * hour,
  // 7 h 12 min 30 s so far; five times 12 h reaches 67 h 12 min, a sixth would pass 3 days.
  12 * hour,
  12 * hour,
  12 * hour,
  12 * hour,
  12 * hour,
];

export const RETRY_JITTER = 0.1;

/**
 * The delay before the next attempt after `failures` consecutive failures (1 after the first), or
 * undefined when the schedule is exhausted and the delivery is dead. `random` is in [0, 1).
 */
export function retryDelay(failures: number, schedule: readonly number[], random: number): number | undefined {
  if (failures < 1 || failures > schedule.length) return undefined;
  const base = schedule[failures - 1]!;
  return Math.max(0, Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random)));
}
