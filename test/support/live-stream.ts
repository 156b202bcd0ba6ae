// A live stream (GET /console/live) read over a real socket, as a browser's EventSource reads it:
// the events parsed so far, and a way to wait for the next ones.
import assert from 'node:assert/strict';
import { onPostgres } from './app.ts';

/**
 * How soon an entry must reach a stream. On PGlite the test owns its database: the promise of a
 * second holds there. On the shared PostgreSQL server the feed shows an entry only once every older
 * transaction on the server has ended, other test files' included, so the delay there is theirs:
 * the entry must still come, within five seconds.
 */
export const arrivalBoundMs = onPostgres ? 5_000 : 1_000;

export interface SseEvent {
  id: string;
  data: any;
  at: number;
}

/** An open stream: the events parsed so far, and a way to wait for the next ones. */
export async function openStream(baseUrl: string, ticket: string, headers: Record<string, string> = {}, query = '') {
  return openStreamAt(`${baseUrl}/console/live?ticket=${encodeURIComponent(ticket)}${query}`, headers);
}

/** Any server-sent event stream at `url` (such as an investor's own, authenticated by a header). */
export async function openStreamAt(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  assert.equal(response.status, 200, await (response.status === 200 ? Promise.resolve('') : response.text()));
  const events: SseEvent[] = [];
  let text = '';
  let waiters: (() => void)[] = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body!) {
        text += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const fields: Record<string, string> = Object.fromEntries(
            block
              .split('\n')
              .filter((l) => !l.startsWith(':'))
              .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
          );
          if (fields.data !== undefined) events.push({ id: fields.id!, data: JSON.parse(fields.data), at: Date.now() });
        }
        for (const w of waiters) w();
        waiters = [];
      }
    } catch {
      // aborted
    }
  })();
  return {
    response,
    events,
    async waitFor(count: number, ms = 5000) {
      const deadline = Date.now() + ms;
      while (events.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} events, got ${events.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return events;
    },
    async close() {
      controller.abort();
      await reading;
    },
  };
}
