// The live console: one server-sent event stream per deal (GET /console/live), shared by every
// component that follows the deal, and one of every deal's edit requests, shared by the top bar's
// Inbox badge and the Inbox page; so each stream is one connection however many follow it.
//
// EventSource cannot send an Authorization header, and the long-lived token must not go in a URL
// (it would land in access logs and history). So each connection first exchanges the token for a
// ticket (POST /console/live/tickets: one deal, or the edit requests, for 60 s) and puts only that
// in the URL. The browser
// reconnects by itself after a dropped connection, sending Last-Event-ID, and the stream goes on
// with no gap and no repeat; once the ticket has expired that reconnect is refused (401), and then
// a new ticket is fetched here and the stream reopened with `after=<last id>`, to the same effect.
import { useEffect, useRef, useState } from 'react';
import { apiBase, call } from './http.ts';
import type { components } from '../../../../packages/client/src/openapi.ts';
import type { Body, Ok } from './types.ts';

/** One feed entry as the stream sends it (the WebhookEvent of the pull feed). */
export type LiveEvent = components['schemas']['WebhookEvent'];

/** A move seen on the stream, for "moved by X just now". */
export interface LiveMove {
  eventId: string;
  investorUserId: string;
  toStepId: string;
  byUserId: string;
  /** When this browser received it (ms). */
  at: number;
}

type Listener = (event: LiveEvent) => void;

/** What a stream follows, as the ticket request says it: `{ dealId }`, `{ feed: 'edit-requests' }` or `{ feed: 'approvals' }`. */
type Follow = Body<'createLiveTicket'>;
const keyOf = (follow: Follow) => (follow.dealId !== undefined ? `deal:${follow.dealId}` : `feed:${follow.feed}`);

interface Connection {
  listeners: Set<Listener>;
  source?: EventSource;
  lastId?: string;
  retry?: ReturnType<typeof setTimeout>;
  closed: boolean;
}

const connections = new Map<string, Connection>();
const enc = encodeURIComponent;

async function open(follow: Follow, connection: Connection, failures = 0): Promise<void> {
  if (connection.closed) return;
  let ticket: string;
  try {
    ticket = (await call<Ok<'createLiveTicket'>>('POST', '/console/live/tickets', follow)).ticket;
  } catch {
    // Offline or signed out: try again, backing off to half a minute.
    connection.retry = setTimeout(() => void open(follow, connection, failures + 1), Math.min(30_000, 1000 * 2 ** failures));
    return;
  }
  if (connection.closed) return;
  const after = connection.lastId ? `&after=${enc(connection.lastId)}` : '';
  const source = new EventSource(`${apiBase}/console/live?ticket=${enc(ticket)}${after}`);
  connection.source = source;
  source.onopen = () => {
    failures = 0;
  };
  source.onmessage = (message) => {
    if (message.lastEventId) connection.lastId = message.lastEventId;
    let event: LiveEvent;
    try {
      event = JSON.parse(message.data as string) as LiveEvent;
    } catch {
      return;
    }
    for (const listener of connection.listeners) listener(event);
  };
  source.onerror = () => {
    // CONNECTING: the browser retries by itself (with Last-Event-ID). CLOSED: it gave up (an
    // expired ticket, or the service refused): a new ticket, from the last id seen.
    if (source.readyState !== EventSource.CLOSED) return;
    source.close();
    if (connection.source === source) connection.source = undefined;
    connection.retry = setTimeout(() => void open(follow, connection, failures + 1), Math.min(30_000, 500 * 2 ** failures));
  };
}

function subscribe(follow: Follow, listener: Listener): () => void {
  const key = keyOf(follow);
  let connection = connections.get(key);
  if (!connection) {
    connection = { listeners: new Set(), closed: false };
    connections.set(key, connection);
    void open(follow, connection);
  }
  connection.listeners.add(listener);
  const mine = connection;
  return () => {
    mine.listeners.delete(listener);
    if (mine.listeners.size > 0) return;
    mine.closed = true;
    clearTimeout(mine.retry);
    mine.source?.close();
    connections.delete(key);
  };
}

/** Calls `onBurst` once per burst of entries of what `follow` follows, while mounted (`undefined`: nothing). */
function useFollow(follow: Follow | undefined, onBurst: (events: LiveEvent[]) => void, onEvent?: (event: LiveEvent) => void, onStop?: () => void) {
  const callbacks = useRef({ onBurst, onEvent, onStop });
  callbacks.current = { onBurst, onEvent, onStop };
  const key = follow && keyOf(follow);
  useEffect(() => {
    if (!follow) return;
    let burst: LiveEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = subscribe(follow, (event) => {
      burst.push(event);
      timer ??= setTimeout(() => {
        const events = burst;
        burst = [];
        timer = undefined;
        callbacks.current.onBurst(events);
      }, 50);
      callbacks.current.onEvent?.(event);
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
      callbacks.current.onStop?.();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
}

/**
 * Follows a deal's feed while mounted (no deal: nothing). `onChange` runs once per burst of
 * entries (a bulk move is one refresh, not fifty); the answer is the latest move seen, for
 * <LiveNote>. Entries of the caller's own actions come too: a refresh then costs little.
 */
export function useLiveFeed(dealId: string | undefined, onChange: (events: LiveEvent[]) => void): LiveMove | undefined {
  const [latest, setLatest] = useState<LiveMove>();
  useFollow(
    dealId === undefined ? undefined : { dealId },
    onChange,
    (event) => {
      const move = moveOf(event);
      if (move) setLatest(move);
    },
    () => setLatest(undefined),
  );
  return latest;
}

/**
 * Follows the edit requests of every deal while mounted: `onChange` runs once per burst of
 * requests filed or decided anywhere (by an investor, a colleague, this tab), within a second.
 */
export function useEditRequestFeed(onChange: (events: LiveEvent[]) => void): void {
  useFollow({ feed: 'edit-requests' }, onChange);
}

/** Follows the four-eyes approvals of every deal while mounted: `onChange` runs once per burst of writes held or decided anywhere. */
export function useApprovalFeed(onChange: (events: LiveEvent[]) => void): void {
  useFollow({ feed: 'approvals' }, onChange);
}

function moveOf(event: LiveEvent): LiveMove | undefined {
  if (event.type !== 'journey.step-entered') return undefined;
  const data = event.data as { investorUserId?: string; toStepId?: string; event?: { id?: string; createdByUserId?: string } };
  if (!data.investorUserId || !data.toStepId || !data.event?.createdByUserId) return undefined;
  return {
    eventId: data.event.id ?? event.id,
    investorUserId: data.investorUserId,
    toStepId: data.toStepId,
    byUserId: data.event.createdByUserId,
    at: Date.now(),
  };
}
