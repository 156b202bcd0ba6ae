// Writing a followed feed to a client as server-sent events, for every live route: the stream's
// first lines, a comment every 15 s so proxies keep it open, one write per page of entries (the
// route's `render` decides what of them the client sees), and back-pressure: the feed reads on for
// this stream only once the client has taken what was written.
import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';
import type { OutboxEntry } from '../domain/feed-entry.ts';
import type { LiveFeed, LiveFollow } from '../operations/live-feed.ts';
import { holdConnection } from './routes/import-jobs.ts';

export const HEARTBEAT_MS = 15_000;

export interface StreamSpec {
  follow: LiveFollow;
  /** The feed sequence to go on after (LiveFeed.startCursor). */
  cursor: number;
  /** The stream's first lines (`retry:` and a comment). */
  greeting: string;
  /** The text of a page of entries ('' sends nothing). */
  render: (entries: OutboxEntry[]) => string;
  /** What the stream may hold unsent before the feed stops reading for it. */
  bufferBytes: number;
}

export function sendEventStream(request: FastifyRequest, reply: FastifyReply, feed: LiveFeed, spec: StreamSpec): FastifyReply {
  holdConnection(request);
  const body = new PassThrough({ highWaterMark: spec.bufferBytes });
  let stop = () => {};
  const heartbeat = setInterval(() => body.write(': keep-alive\n\n'), HEARTBEAT_MS);
  const finish = () => {
    clearInterval(heartbeat);
    stop();
    if (!body.writableEnded) body.end();
  };
  reply.raw.once('close', finish); // the client went away (or the response ended)
  body.write(spec.greeting);
  stop = feed.subscribe(
    {
      follow: spec.follow,
      deliver: async (entries) => {
        if (body.writableEnded) throw new AppError('conflict', 'the stream has ended');
        const text = spec.render(entries);
        if (text && !body.write(text)) await new Promise<void>((resolve) => body.once('drain', resolve).once('close', resolve));
      },
      end: finish,
    },
    spec.cursor,
  );
  return reply
    .code(200)
    .header('Content-Type', 'text/event-stream; charset=utf-8')
    .header('Cache-Control', 'no-cache, no-transform')
    .header('X-Accel-Buffering', 'no')
    .send(body as unknown as string); // a stream: Fastify pipes it, with no serialisation
}
