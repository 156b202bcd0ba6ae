// Step triggers: `triggers: [{ kind: "webhook", url, secret?, events? }]` on a workflow
// step. Checked when the workflow is saved: http(s) URLs only, no credentials in the URL, secrets in
// the Standard Webhooks form `whsec_<base64 of 24–64 bytes>`, known event types only.
import type { FieldError } from './errors.ts';
import { isOutboxEventType, type OutboxEventType, outboxEventTypes } from './outbox-event.ts';

export const triggerKinds = ['webhook'] as const;
export type TriggerKind = (typeof triggerKinds)[number];

/** A trigger as a client sends it. */
export interface StepTriggerInput {
  kind: TriggerKind;
  url: string;
  secret?: string;
  events?: string[];
}

/** A checked trigger: `events` filled in, `secret` undefined meaning "keep the stored one, if any". */
export interface StepTrigger {
  kind: TriggerKind;
  url: string;
  secret: string | undefined;
  events: OutboxEventType[];
}

/** Without `events` a trigger fires when an investor enters its step. */
export const defaultTriggerEvents: readonly OutboxEventType[] = ['journey.step-entered'];
export const MAX_TRIGGERS_PER_STEP = 10;
const MAX_URL_LENGTH = 2048;

/** Standard Webhooks secrets: `whsec_` then base64 of 24 to 64 random bytes. */
export function isWebhookSecret(secret: string): boolean {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!match || match[1]!.length % 4 !== 0) return false;
  const bytes = (match[1]!.length / 4) * 3 - (match[1]!.match(/=+$/)?.[0].length ?? 0);
  return bytes >= 24 && bytes <= 64;
}

export function webhookUrlProblem(raw: string): string | undefined {
  if (raw.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials (use the secret to authenticate deliveries)';
  if (url.hostname === '') return 'has no host';
  return undefined;
}

/**
 * Checks the triggers of one step. `field` is where they sit in the request (e.g.
 * `steps.2.triggers`), for the error list.
 */
export function checkStepTriggers(triggers: readonly StepTriggerInput[], field: string): { triggers: StepTrigger[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const error = (at: string, detail: string) => errors.push({ in: 'body', field: at, detail });
  if (triggers.length > MAX_TRIGGERS_PER_STEP) error(field, `at most ${MAX_TRIGGERS_PER_STEP} triggers per step`);
  const seen = new Set<string>();
  const checked = triggers.map((trigger, i): StepTrigger => {
    const at = `${field}.${i}`;
    if (trigger.kind !== 'webhook') error(`${at}.kind`, 'must be "webhook"');
    const urlProblem = webhookUrlProblem(trigger.url);
    if (urlProblem) error(`${at}.url`, urlProblem);
    else if (seen.has(trigger.url)) error(`${at}.url`, 'is already a trigger of this step');
    seen.add(trigger.url);
    if (trigger.secret !== undefined && !isWebhookSecret(trigger.secret)) {
      error(`${at}.secret`, 'must be "whsec_" followed by the base64 of 24 to 64 random bytes');
    }
    const events: OutboxEventType[] = [];
    for (const [j, type] of (trigger.events ?? defaultTriggerEvents).entries()) {
      if (!isOutboxEventType(type)) error(`${at}.events.${j}`, `is not an event type (one of ${outboxEventTypes.join(', ')})`);
      else if (events.includes(type)) error(`${at}.events.${j}`, 'is listed twice');
      else events.push(type);
    }
    if (trigger.events !== undefined && trigger.events.length === 0) error(`${at}.events`, 'must list at least one event type (or be left out)');
    return { kind: 'webhook', url: trigger.url, secret: trigger.secret, events };
  });
  return { triggers: checked, errors };
}
