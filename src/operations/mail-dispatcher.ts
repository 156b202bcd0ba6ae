// The mail dispatcher: claims due mails (store/mails.ts: FOR UPDATE SKIP LOCKED and a lease),
// renders each (mail-templates.ts), sends it through SMTP_URL outside any transaction, and records
// the outcome as a fact. A refusal or a failed connection is retried on the webhooks' schedule
// (domain/webhook-retry.ts, about 3 days), then the mail is dead; a permanent refusal (5xx) is dead
// at once. Runs in the service and in `dealflow worker`; any number may run on one PostgreSQL.
//
// Exactly once, and where it stops (docs/operations/mail.md): a mail is claimed before it is sent
// and recorded sent right after the server's 250 to DATA, so a dispatcher that dies before the 250
// leaves a claim whose lease runs out (at the next start on the embedded database) and the mail is
// sent again: the server never accepted the first copy, so it arrives once. One window remains:
// dying between the server's 250 and our commit of `sent` (a few milliseconds). That mail is sent
// again, with the same Message-ID (`<mail id@sender's domain>`), which receivers use to drop the
// second copy. No protocol closes this window: SMTP has no way to ask whether a message arrived.
import { pollingLoop } from './polling-loop.ts';
import { randomUUID } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailConfig } from '../config-mail.ts';
import { type MailKind, type MailLanguage, messageIdOf, parseAddress } from '../domain/mail.ts';
import { defaultRetrySchedule, retryDelay } from '../domain/webhook-retry.ts';
import { type ClaimedMail, claimDueMails, type MailOutcome, recordMailOutcome } from '../store/mails.ts';
import type { Db } from '../store/schema.ts';
import { type Clock, systemClock } from './deps.ts';
import { createRenderer, loadTemplateFolder, type Renderer } from './mail-templates.ts';

export interface MailDispatcherOptions {
  db: Db;
  smtp: { url: string; from: string };
  mail: MailConfig;
  /** PUBLIC_URL: the portal's and console's links are made from it. */
  publicUrl: string;
  clock?: Clock;
  batchSize?: number;
  schedule?: readonly number[];
  random?: () => number;
  log?: { warn(obj: object, msg: string): void };
}

export interface MailDispatcher {
  start(): void;
  stop(): Promise<void>;
  /** One scan: claims due mails, sends them one after another, records each outcome. How many it tried. */
  runOnce(): Promise<number>;
}

export function createMailDispatcher(options: MailDispatcherOptions): MailDispatcher {
  const { db, smtp, mail: config } = options;
  const clock = options.clock ?? systemClock;
  const batchSize = options.batchSize ?? 10;
  const schedule = options.schedule ?? defaultRetrySchedule;
  const random = options.random ?? Math.random;
  const leaseMs = config.leaseMs;
  const render: Renderer = createRenderer(loadTemplateFolder(config.templateDir));
  const from = parseAddress(smtp.from)!;
  const domain = from.address.split('@')[1]!;
  const portalUrl = `${options.publicUrl}/portal/`;
  const consoleUrl = `${options.publicUrl}/console/`;

  function message(mail: ClaimedMail) {
    const variables: Record<string, string> = { portalUrl, consoleUrl, ...mail.variables };
    if (variables.documentUrl?.startsWith('#')) variables.documentUrl = `${portalUrl}${variables.documentUrl}`;
    const rendered = render(mail.kind as MailKind, mail.language as MailLanguage, variables);
    return {
      from: { name: mail.senderName ?? from.name ?? '', address: from.address },
      to: { name: mail.recipientName, address: mail.recipientAddress },
      messageId: messageIdOf(mail.id, domain),
      // The enqueue time, so that every copy of one mail is the same message.
      date: mail.enqueuedAt,
      headers: { 'Auto-Submitted': 'auto-generated' },
      ...rendered,
    };
  }

  async function attempt(transport: Transporter, mail: ClaimedMail, claimedAt: Date): Promise<void> {
    let outcome: MailOutcome;
    const now = clock();
    if (now.getTime() - mail.enqueuedAt.getTime() > config.maxAgeHours * 3_600_000) {
      outcome = { outcome: 'dead', detail: `not sent within MAIL_MAX_AGE_HOURS (${config.maxAgeHours} h) of being enqueued` };
    } else if (now.getTime() - claimedAt.getTime() > leaseMs / 2) {
      // Too little of the lease is left to be sure no other dispatcher takes it meanwhile.
      outcome = { outcome: 'failed', detail: 'not started before half of its lease had passed', retryAt: now };
    } else {
      try {
        const info = await transport.sendMail(message(mail));
        outcome = { outcome: 'sent', detail: String(info.response ?? '') };
      } catch (err) {
        const error = err as { responseCode?: number; message?: string };
        const detail = String(error.message ?? err).slice(0, 500);
        const delay = retryDelay(mail.failures + 1, schedule, random());
        const permanent = typeof error.responseCode === 'number' && error.responseCode >= 500;
        outcome = permanent || delay === undefined ? { outcome: 'dead', detail } : { outcome: 'failed', detail, retryAt: new Date(clock().getTime() + delay) };
        options.log?.warn({ mailId: mail.id, kind: mail.kind, error: detail, outcome: outcome.outcome }, 'mail not sent');
      }
    }
    if (!(await recordMailOutcome(db, mail, outcome, clock()))) {
      options.log?.warn({ mailId: mail.id }, 'mail attempt was taken over by another dispatcher meanwhile');
    }
  }

  async function runOnce(): Promise<number> {
    const claimedAt = clock();
    const claimed = await claimDueMails(db, { now: claimedAt, leaseMs, limit: batchSize, claimId: randomUUID() });
    if (claimed.length === 0) return 0;
    const t = config.timeoutMs;
    const transport = nodemailer.createTransport({ url: smtp.url, connectionTimeout: t, greetingTimeout: t, socketTimeout: t });
    try {
      for (const mail of claimed) {
        await attempt(transport, mail, claimedAt).catch((err: unknown) => options.log?.warn({ err, mailId: mail.id }, 'could not record a mail attempt'));
      }
    } finally {
      transport.close();
    }
    return claimed.length;
  }

  const loop = pollingLoop(runOnce, {
    batchSize,
    pollMs: config.pollMs,
    onError: (err) => options.log?.warn({ err }, 'mail dispatcher could not claim mails'),
  });
  return {
    start: loop.start,
    stop: loop.stop,
    runOnce,
  };
}
