// The built-in English templates, one per kind of mail: a subject, a plain-text body and an HTML
// body (wrapped in mail-templates.ts's layout). A fund overrides any of them with files in
// MAIL_TEMPLATE_DIR (docs/reference/e-mail-templates.md); German and French fall back to these.
import type { MailKind } from '../domain/mail.ts';

export interface MailTemplate {
  subject: string;
  text: string;
  html: string;
}

export const englishTemplates: Record<MailKind, MailTemplate> = {
  invitation: {
    subject: 'Your invitation to the investor portal',
    text: `Hello {{recipientName}},

You are invited to the investor portal, where you can follow your deals and see how to pay.
Open this link on the device you want to sign in with, and create a passkey there:

{{invitationUrl}}

The link works once, until {{expiresAt}}. If you did not expect this message, you can ignore it.`,
    html: `<p>Hello {{recipientName}},</p>
<p>You are invited to the investor portal, where you can follow your deals and see how to pay.
Open this link on the device you want to sign in with, and create a passkey there:</p>
<p><a href="{{invitationUrl}}">{{invitationUrl}}</a></p>
<p>The link works once, until {{expiresAt}}. If you did not expect this message, you can ignore it.</p>`,
  },
  'document-to-sign': {
    subject: '{{dealName}}: a document to sign',
    text: `Hello {{recipientName}},

"{{documentTitle}}" of {{dealName}} is ready for your signature. Read and sign it in the investor portal:

{{documentUrl}}`,
    html: `<p>Hello {{recipientName}},</p>
<p>“{{documentTitle}}” of {{dealName}} is ready for your signature. Read and sign it in the investor portal:</p>
<p><a href="{{documentUrl}}">{{documentUrl}}</a></p>`,
  },
  'countersigned-copy': {
    subject: '{{dealName}}: your countersigned copy',
    text: `Hello {{recipientName}},

"{{documentTitle}}" of {{dealName}} is now signed by both sides. Download your copy in the investor portal:

{{documentUrl}}`,
    html: `<p>Hello {{recipientName}},</p>
<p>“{{documentTitle}}” of {{dealName}} is now signed by both sides. Download your copy in the investor portal:</p>
<p><a href="{{documentUrl}}">{{documentUrl}}</a></p>`,
  },
  'payment-instructions': {
    subject: '{{dealName}}: how to pay {{amountRemaining}} {{currency}}',
    text: `Hello {{recipientName}},

Your commitment to {{dealName}} is {{amountDue}} {{currency}}; {{amountRemaining}} {{currency}} is still to pay.
Please transfer it to:

Beneficiary: {{beneficiaryName}}
IBAN: {{iban}}
BIC: {{bic}}
Reference: {{reference}}

Use the reference exactly as written, so that your payment is recognised. The portal shows what has arrived:
{{portalUrl}}`,
    html: `<p>Hello {{recipientName}},</p>
<p>Your commitment to {{dealName}} is <strong>{{amountDue}} {{currency}}</strong>; <strong>{{amountRemaining}} {{currency}}</strong> is still to pay.
Please transfer it to:</p>
<table role="presentation">
<tr><th align="left">Beneficiary</th><td>{{beneficiaryName}}</td></tr>
<tr><th align="left">IBAN</th><td><code>{{iban}}</code></td></tr>
<tr><th align="left">BIC</th><td><code>{{bic}}</code></td></tr>
<tr><th align="left">Reference</th><td><code>{{reference}}</code></td></tr>
</table>
<p>Use the reference exactly as written, so that your payment is recognised. The portal shows what has arrived:
<a href="{{portalUrl}}">{{portalUrl}}</a></p>`,
  },
  'payment-received': {
    subject: '{{dealName}}: we received {{amountReceived}} {{currency}}',
    text: `Hello {{recipientName}},

We received {{amountReceived}} {{currency}} for {{dealName}} (reference {{reference}}).
In all you have paid {{totalReceived}} {{currency}}; {{amountRemaining}} {{currency}} remains.

{{portalUrl}}`,
    html: `<p>Hello {{recipientName}},</p>
<p>We received <strong>{{amountReceived}} {{currency}}</strong> for {{dealName}} (reference <code>{{reference}}</code>).
In all you have paid {{totalReceived}} {{currency}}; {{amountRemaining}} {{currency}} remains.</p>
<p><a href="{{portalUrl}}">{{portalUrl}}</a></p>`,
  },
  'edit-request-decided': {
    subject: '{{dealName}}: your edit request was {{decision}}',
    text: `Hello {{recipientName}},

Your request "{{requestType}}" in {{dealName}} was {{decision}}.
{{reason}}

{{portalUrl}}`,
    html: `<p>Hello {{recipientName}},</p>
<p>Your request “{{requestType}}” in {{dealName}} was <strong>{{decision}}</strong>.</p>
<p>{{reason}}</p>
<p><a href="{{portalUrl}}">{{portalUrl}}</a></p>`,
  },
  'staff-digest': {
    subject: 'What waits for you on {{day}}',
    text: `Hello {{recipientName}},

Waiting in the console on {{day}}:

Edit requests to decide: {{editRequests}}
Payments queued for a decision: {{queuedPayments}}
Documents to countersign: {{documentsToCountersign}}
Approvals waiting for a second person: {{approvals}}

{{consoleUrl}}

You receive this once a day; to stop it, ask an admin or send PUT {{consoleUrl}}api/staff/{{personId}}/digest with {"dailyDigest": false}.`,
    html: `<p>Hello {{recipientName}},</p>
<p>Waiting in the console on {{day}}:</p>
<table role="presentation">
<tr><th align="left">Edit requests to decide</th><td>{{editRequests}}</td></tr>
<tr><th align="left">Payments queued for a decision</th><td>{{queuedPayments}}</td></tr>
<tr><th align="left">Documents to countersign</th><td>{{documentsToCountersign}}</td></tr>
<tr><th align="left">Approvals waiting for a second person</th><td>{{approvals}}</td></tr>
</table>
<p><a href="{{consoleUrl}}">{{consoleUrl}}</a></p>
<p>You receive this once a day; to stop it, ask an admin or send PUT {{consoleUrl}}api/staff/{{personId}}/digest with {"dailyDigest": false}.</p>`,
  },
};

/** German and French: empty until translated; each missing template falls back to English. */
export const translatedTemplates: Record<'de' | 'fr', Partial<Record<MailKind, Partial<MailTemplate>>>> = { de: {}, fr: {} };
