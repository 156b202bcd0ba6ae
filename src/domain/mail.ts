// Transactional e-mails: their kinds, the variables each kind's templates may use, the languages
// they are written in, and the one rule that fills a template (docs/reference/e-mail-templates.md).

export const mailKinds = [
  'invitation',
  'document-to-sign',
  'countersigned-copy',
  'payment-instructions',
  'payment-received',
  'edit-request-decided',
  'staff-digest',
] as const;
export type MailKind = (typeof mailKinds)[number];

/** English first; a template missing in another language falls back to English. */
export const mailLanguages = ['en', 'de', 'fr'] as const;
export type MailLanguage = (typeof mailLanguages)[number];

const common = ['recipientName', 'dealName', 'portalUrl'] as const;

/** The variables each kind's templates may use; every one is always set (an empty string at worst). */
export const mailVariables: Record<MailKind, readonly string[]> = {
  invitation: [...common, 'invitationUrl', 'expiresAt'],
  'document-to-sign': [...common, 'documentTitle', 'documentUrl'],
  'countersigned-copy': [...common, 'documentTitle', 'documentUrl'],
  'payment-instructions': [...common, 'amountDue', 'amountRemaining', 'currency', 'reference', 'beneficiaryName', 'iban', 'bic'],
  'payment-received': [...common, 'amountReceived', 'totalReceived', 'amountRemaining', 'currency', 'reference'],
  'edit-request-decided': [...common, 'requestType', 'decision', 'reason'],
  'staff-digest': [...common, 'personId', 'day', 'editRequests', 'queuedPayments', 'documentsToCountersign', 'approvals', 'consoleUrl'],
};

export const isMailLanguage = (value: unknown): value is MailLanguage => (mailLanguages as readonly unknown[]).includes(value);

/** The language to write in: the investor's when it is one we have, else English. */
export const mailLanguageOf = (preferred: string | null | undefined): MailLanguage => (isMailLanguage(preferred) ? preferred : 'en');

/** HTML's five special characters as entities, so a variable never becomes markup. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * Fills `{{name}}` placeholders (spaces inside the braces allowed). In HTML every value is escaped;
 * `{{{name}}}` is never raw: a fund's template cannot turn an investor's name into markup. An
 * unknown name is an error, so a typo in an overriding template is found when it is loaded.
 */
export function fillTemplate(template: string, variables: Readonly<Record<string, string>>, html: boolean): string {
  return template.replace(/\{\{\s*([A-Za-z][A-Za-z0-9]*)\s*\}\}/g, (_, name: string) => {
    const value = variables[name];
    if (value === undefined) throw new Error(`unknown variable {{${name}}}`);
    return html ? escapeHtml(value) : value;
  });
}

/** The placeholders a template uses that its kind does not have. */
export function unknownVariables(kind: MailKind, template: string): string[] {
  const known = new Set(mailVariables[kind]);
  return [...template.matchAll(/\{\{\s*([A-Za-z][A-Za-z0-9]*)\s*\}\}/g)].map((m) => m[1]!).filter((name) => !known.has(name));
}

/** The day (YYYY-MM-DD, UTC) whose digest is due at `now`, or undefined before the digest hour. */
export function digestDayDue(now: Date, hourUtc: number): string | undefined {
  return now.getUTCHours() >= hourUtc ? now.toISOString().slice(0, 10) : undefined;
}

/** The Message-ID of a mail (RFC 5322 section 3.6.4): fixed at enqueue, the same on every attempt. */
export const messageIdOf = (mailId: string, domain: string): string => `<${mailId}@${domain}>`;

/** An address in "Name <address>" form, or a bare one; undefined when it is neither. */
export function parseAddress(from: string): { name: string | undefined; address: string } | undefined {
  const named = /^\s*([^<>]*?)\s*<([^<>@\s]+@[^<>@\s]+)>\s*$/.exec(from);
  if (named) return { name: named[1]!.replace(/^"|"$/g, '') || undefined, address: named[2]! };
  const bare = /^\s*([^<>@\s]+@[^<>@\s]+)\s*$/.exec(from);
  return bare ? { name: undefined, address: bare[1]! } : undefined;
}
