// Invitation e-mails (SMTP_URL, SMTP_FROM): plain text and a simple HTML part with the same words,
// no images, no tracking. Sent after the invitations committed; a mail that fails leaves its
// invitation valid and is answered as `emailed: false` (staff can pass the link on themselves).
import nodemailer from 'nodemailer';

export interface InvitationMail {
  investorUserId: string;
  to: string;
  name: string;
  url: string;
  expiresAt: Date;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function invitationText(mail: InvitationMail) {
  const until = mail.expiresAt.toUTCString();
  const text = [
    `Hello ${mail.name},`,
    '',
    'You are invited to the investor portal, where you can follow your deals and see how to pay.',
    'Open this link on the device you want to sign in with, and create a passkey there:',
    '',
    mail.url,
    '',
    `The link works once, until ${until}. If you did not expect this message, you can ignore it.`,
  ].join('\n');
  const html = [
    '<!doctype html><html><body>',
    `<p>Hello ${escapeHtml(mail.name)},</p>`,
    '<p>You are invited to the investor portal, where you can follow your deals and see how to pay.',
    'Open this link on the device you want to sign in with, and create a passkey there:</p>',
    `<p><a href="${escapeHtml(mail.url)}">${escapeHtml(mail.url)}</a></p>`,
    `<p>The link works once, until ${escapeHtml(until)}. If you did not expect this message, you can ignore it.</p>`,
    '</body></html>',
  ].join('\n');
  return { subject: 'Your invitation to the investor portal', text, html };
}

/** Sends each mail over one SMTP connection; the investors whose mail the server accepted. */
export async function sendInvitationMails(smtp: { url: string; from: string }, mails: readonly InvitationMail[]): Promise<Set<string>> {
  const transport = nodemailer.createTransport(smtp.url);
  const sent = new Set<string>();
  try {
    for (const mail of mails) {
      try {
        await transport.sendMail({ from: smtp.from, to: mail.to, ...invitationText(mail) });
        sent.add(mail.investorUserId);
      } catch {
        // Not sent: the answer says so for this investor, the link is still valid.
      }
    }
  } finally {
    transport.close();
  }
  return sent;
}
