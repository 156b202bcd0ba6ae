// Running an import's transactions: several at once where the database has connections for them,
// and a pause between them where it has one.
import { setTimeout as sleep } from 'node:timers/promises';

/** The pause after each transaction of an import on the embedded database (statement-import.ts). */
export const letOthersIn = () => sleep(5);

/** Runs `work` over `items`, at most `limit` at a time; the first failure is thrown once all stop. */
export async function eachConcurrently<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  const lane = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (failure !== undefined) throw failure;
}
