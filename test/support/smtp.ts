// A real SMTP server for the tests (smtp-server), on a free loopback port, keeping what arrived
// parsed by mailparser. A mail has arrived when the server answered 250 to its DATA on a
// connection that was still open: with `hold`, that answer waits until `release()`, and a
// connection that closes meanwhile (the sender killed) delivered nothing, as with a real server.
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { type StartAppOptions, type StartedApp, startApp } from './app.ts';

export interface ArrivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  parsed: ParsedMail;
  messageId: string;
  subject: string;
  text: string;
  html: string;
  fromName: string;
  fromAddress: string;
  to: string;
}

export interface MailCatcher {
  readonly url: string;
  readonly arrived: ArrivedMail[];
  /** Mails whose DATA was read and whose answer is held. */
  readonly held: number;
  /** From now on, hold the answer to DATA (true) or answer at once (false, the default). */
  hold(on: boolean): void;
  /**
   * Answers every held DATA with 250, once the close of a connection whose sender was just killed
   * has reached the server (a killed sender's connection is not answered).
   */
  release(): Promise<void>;
  /** Resolves once `n` mails are held (or arrived, when not holding). */
  waitFor(count: () => number, n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const arrived: ArrivedMail[] = [];
  let holding = false;
  const heldAnswers: (() => void)[] = [];
  const closed = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const answer = async () => {
          // The sender is gone: no 250 reaches it, nothing was delivered.
          if (closed.has(session.id)) return;
          const parsed = await simpleParser(Buffer.concat(chunks));
          const from = parsed.from?.value[0];
          arrived.push({
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            parsed,
            messageId: parsed.messageId ?? '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            fromName: from?.name ?? '',
            fromAddress: from?.address ?? '',
            to: Array.isArray(parsed.to) ? '' : (parsed.to?.value[0]?.address ?? ''),
          });
          callback();
        };
        if (holding) heldAnswers.push(() => void answer());
        else void answer();
      });
    },
    onClose(session) {
      closed.add(session.id);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    arrived,
    get held() {
      return heldAnswers.length;
    },
    hold(on) {
      holding = on;
    },
    async release() {
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const answer of heldAnswers.splice(0)) answer();
    },
    async waitFor(count, n, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (count() < n) {
        if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${n}, have ${count()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The app of a test file that sends mail: a MailCatcher started before it (in a before() hook)
 * and closed after it, and the app (startApp) sending to it from `SMTP_FROM` "Deals
 * <deals@example.com>", with the options' clock and further settings. `smtp()` is the catcher
 * once the hooks ran.
 */
export function startAppWithMail(options: StartAppOptions = {}): { t: StartedApp; smtp: () => MailCatcher } {
  let catcher: MailCatcher | undefined;
  before(async () => {
    catcher = await startMailCatcher();
  });
  after(async () => {
    await catcher?.close();
  });
  const env: Record<string, string> = {
    // Read when the app starts, after the catcher has its port.
    get SMTP_URL() {
      return catcher!.url;
    },
    SMTP_FROM: 'Deals <deals@example.com>',
  } as Record<string, string>;
  const t = startApp({ ...options, env: Object.defineProperties(env, Object.getOwnPropertyDescriptors(options.env ?? {})) });
  return { t, smtp: () => catcher! };
}
