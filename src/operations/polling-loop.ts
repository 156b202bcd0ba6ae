// The loop of a dispatcher (webhook deliveries, mails): one round after another until stopped,
// again at once after a full batch (more may be due), else after the poll interval or a wake-up.
// A round that fails is reported and waited out like an empty one.

export interface PollingLoop {
  start(): void;
  /** Ends the loop after the round under way. */
  stop(): Promise<void>;
  /** Cuts the current wait short. */
  wake(): void;
}

export function pollingLoop(round: () => Promise<number>, options: { batchSize: number; pollMs: number; onError: (err: unknown) => void }): PollingLoop {
  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;

  async function pause(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, options.pollMs);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wakeUp = undefined;
  }

  async function run(): Promise<void> {
    while (running) {
      let tried = 0;
      try {
        tried = await round();
      } catch (err) {
        options.onError(err);
      }
      if (running && tried < options.batchSize) await pause();
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await loop;
      loop = undefined;
    },
    wake: () => wakeUp?.(),
  };
}
