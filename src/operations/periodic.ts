// Background work an instance repeats on a timer (the audit sealer, the funnel's upkeep): one run
// at a time (a tick while the last run is still at work is skipped), failures logged, never thrown.

export interface Periodic {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

export function runEvery(intervalMs: number, work: () => Promise<unknown>, onError: (err: unknown) => void): Periodic {
  let running: Promise<unknown> | undefined;
  const tick = () => {
    if (running) return;
    running = work()
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
