// Transactional e-mails (docs/reference/e-mail-templates.md, docs/reference/configuration.md):
// where a fund's templates are, when the staff digest goes out, and the dispatcher's pace. The
// server and sender are SMTP_URL and SMTP_FROM (the portal's settings); without SMTP_URL mails are
// enqueued but nothing sends them.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type Env, integer } from './config-env.ts';

export interface MailConfig {
  /** MAIL_TEMPLATE_DIR: a folder of templates that replace the built-in ones (absolute). */
  templateDir?: string;
  /** MAIL_DIGEST_HOUR: from this hour (UTC) on, each staff person's daily digest is due. */
  digestHourUtc: number;
  /** MAIL_TIMEOUT_MS: the longest wait for the SMTP server at each step of a send. */
  timeoutMs: number;
  /**
   * MAIL_LEASE_MS: how long a dispatcher's claim of a mail holds before another may send it (default
   * ten timeouts and 30 s; at least two timeouts).
   */
  leaseMs: number;
  /** MAIL_POLL_MS: the pause of an idle dispatcher between scans for due mails. */
  pollMs: number;
  /** MAIL_MAX_AGE_HOURS: a mail not sent this long after it was enqueued is given up (dead). */
  maxAgeHours: number;
}

export function mailConfig(env: Env): MailConfig {
  const raw = env.MAIL_TEMPLATE_DIR || undefined;
  let templateDir: string | undefined;
  if (raw !== undefined) {
    templateDir = path.resolve(raw);
    if (!existsSync(templateDir) || !statSync(templateDir).isDirectory()) throw new ConfigError('MAIL_TEMPLATE_DIR', `is not a folder: "${raw}"`);
  }
  const timeoutMs = integer(env, 'MAIL_TIMEOUT_MS', 30_000, 100, 600_000);
  return {
    ...(templateDir ? { templateDir } : {}),
    digestHourUtc: integer(env, 'MAIL_DIGEST_HOUR', 7, 0, 23),
    timeoutMs,
    leaseMs: integer(env, 'MAIL_LEASE_MS', 10 * timeoutMs + 30_000, 2 * timeoutMs, 24 * 3_600_000),
    pollMs: integer(env, 'MAIL_POLL_MS', 1000, 10, 600_000),
    maxAgeHours: integer(env, 'MAIL_MAX_AGE_HOURS', 72, 1, 24 * 365),
  };
}
