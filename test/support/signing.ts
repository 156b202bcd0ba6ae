// Signing subscription agreements in tests: a template PDF with form fields, the PDF of an
// agreement fetched behind a session cookie, a signature made with the software authenticator
// (options, then the passkey's answer), and what poppler's pdfsig says of a PDF.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Client } from './app.ts';
import type { PortalSessionHandle } from './portal.ts';
import type { SoftAuthenticator } from './webauthn.ts';

/** A one-page template with text fields named after the data they take, and one no data fills. */
export async function templatePdf(fields = ['investor_name', 'address_line1', 'amount', 'currency', 'date', 'left_blank']): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595.28, 841.89]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.drawText('Subscription agreement (template)', { x: 50, y: 780, size: 18, font });
  const form = doc.getForm();
  fields.forEach((name, i) => {
    page.drawText(name, { x: 50, y: 700 - i * 40, size: 10, font });
    form.createTextField(name).addToPage(page, { x: 200, y: 690 - i * 40, width: 300, height: 24 });
  });
  return Buffer.from(await doc.save());
}

export const agreementPath = (door: 'portal' | 'console' | '', dealId: string, investorUserId: string) =>
  `${door ? `/${door}/api` : ''}/deals/deal/${dealId}/agreements/${investorUserId}`;

/** The agreement's PDF behind a session (or a token client): status, bytes and ETag. */
export async function agreementPdf(api: Client, url: string) {
  const response = await api.raw({ method: 'GET', url: `${url}/content` });
  return { status: response.statusCode, bytes: response.rawPayload, etag: String(response.headers.etag ?? ''), body: response.body };
}

/** Options for the document reviewed, then the authenticator's answer sent: the response of the signature. */
export async function sign(session: PortalSessionHandle, authenticator: SoftAuthenticator, url: string, contentHash: string) {
  const options = await session.api.post(`${url}/signing-options`, { contentHash });
  assert.equal(options.status, 201, options.text);
  const response = authenticator.authenticate(options.body.options);
  return session.api.post(`${url}/signatures`, { response });
}

export interface PdfsigSignature {
  field: string;
  valid: boolean;
  totalDocumentSigned: boolean;
  type: string;
}

/** pdfsig's verdict on a PDF: each signature's field, validity and whether it covers the whole file. */
export function pdfsig(bytes: Uint8Array): { output: string; signatures: PdfsigSignature[] } {
  const dir = mkdtempSync(path.join(tmpdir(), 'pdfsig-'));
  try {
    const file = path.join(dir, 'signed.pdf');
    writeFileSync(file, bytes);
    const run = spawnSync('/usr/bin/pdfsig', [file], { encoding: 'utf8' });
    const output = `${run.stdout}${run.stderr}`;
    const signatures = output
      .split(/^Signature #\d+:$/m)
      .slice(1)
      .map((block) => ({
        field: /Signature Field Name: (.*)/.exec(block)?.[1] ?? '',
        valid: /Signature Validation: Signature is Valid\./.test(block),
        totalDocumentSigned: /^\s+- Total document signed$/m.test(block),
        type: /Signature Type: (.*)/.exec(block)?.[1] ?? '',
      }));
    return { output, signatures };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
