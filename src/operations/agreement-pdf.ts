// The investor's subscription agreement as a PDF (docs/concepts.md, "Documents and signatures"):
// the deal's template with its form fields filled and flattened, or, when the deal has no template,
// one page made from the deal's text. A field is filled by its name: `investor_name`, `amount`,
// `currency`, `date`, `deal_name`, or the key of any captured field (`address_line1`, …). Written
// with a classic cross-reference table and no time of its own, so the same data make the same bytes
// (the same SHA-256) and sealing can append to it (pdf-seal.ts).
import { PDFDocument, type PDFFont, PDFName, PDFRef, PDFTextField, StandardFonts } from 'pdf-lib';

export interface AgreementData {
  dealName: string;
  dealDescription: string | null;
  investorName: string;
  /** What the investor's journey captured, by field key; labels name them on a generated page. */
  captured: Readonly<Record<string, string>>;
  labels: ReadonlyMap<string, string>;
  amount: string | null;
  currency: string | null;
  /** The UTC date of the agreement, YYYY-MM-DD. */
  date: string;
}

/** The value of a form field named `name`, or undefined when the data has none. */
export function fieldValue(data: AgreementData, name: string): string | undefined {
  const named: Record<string, string | null> = {
    investor_name: data.investorName,
    amount: data.amount,
    currency: data.currency,
    date: data.date,
    deal_name: data.dealName,
  };
  return named[name] ?? data.captured[name] ?? undefined;
}

// The standard fonts write WinAnsi: any other character is shown as "?".
const winAnsi = (text: string) => text.replace(/[^\x20-\x7e\xa0-\xff€\n]/g, '?');

const FIXED = new Date('2000-01-01T00:00:00Z');

/** A PDF's bytes as this module writes them: no object streams, fixed dates. */
async function bytesOf(doc: PDFDocument): Promise<Buffer> {
  doc.setCreationDate(FIXED);
  doc.setModificationDate(FIXED);
  doc.setProducer('dealflow');
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** The template's text fields filled from the data and flattened (the reviewed text cannot change); other fields are left. */
export async function fillTemplate(template: Uint8Array, data: AgreementData): Promise<Buffer> {
  const doc = await PDFDocument.load(template, { updateMetadata: false });
  const form = doc.getForm();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const field of form.getFields()) {
    if (!(field instanceof PDFTextField)) continue;
    const value = fieldValue(data, field.getName());
    if (value !== undefined) field.setText(winAnsi(value));
  }
  form.updateFieldAppearances(font);
  form.flatten();
  // Flattening removes the fields' widgets but may leave the pages naming them: those go too.
  for (const page of doc.getPages()) {
    const annots = page.node.Annots();
    if (!annots) continue;
    for (let i = annots.size() - 1; i >= 0; i--) {
      const ref = annots.get(i);
      if (ref instanceof PDFRef && doc.context.lookup(ref) === undefined) annots.remove(i);
    }
    if (annots.size() === 0) page.node.delete(PDFName.of('Annots'));
  }
  return bytesOf(doc);
}

/** Lines of at most `width` points. */
function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of winAnsi(text).split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      const next = line ? `${line} ${word}` : word;
      if (font.widthOfTextAtSize(next, size) > width && line) {
        lines.push(line);
        line = word;
      } else line = next;
    }
    lines.push(line);
  }
  return lines;
}

/** One A4 page from the deal's text: the parties, every captured field, the amount and the date. */
export async function generateAgreement(data: AgreementData): Promise<Buffer> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle(winAnsi(`Subscription agreement: ${data.dealName}`));
  const page = doc.addPage([595.28, 841.89]);
  const [regular, bold] = [await doc.embedFont(StandardFonts.Helvetica), await doc.embedFont(StandardFonts.HelveticaBold)];
  let y = 780;
  const write = (text: string, options: { size?: number; font?: PDFFont; gap?: number } = {}) => {
    const size = options.size ?? 11;
    for (const line of wrap(text, options.font ?? regular, size, 495)) {
      page.drawText(line, { x: 50, y, size, font: options.font ?? regular });
      y -= size * 1.4;
    }
    y -= options.gap ?? 0;
  };
  write('Subscription agreement', { size: 20, font: bold, gap: 8 });
  write(data.dealName, { size: 14, font: bold, gap: 6 });
  if (data.dealDescription) write(data.dealDescription, { gap: 10 });
  write(`The investor, ${data.investorName}, subscribes to ${data.dealName} on the terms below.`, { gap: 10 });
  const rows: [string, string][] = [
    ['Investor', data.investorName],
    ...Object.entries(data.captured)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, value]): [string, string] => [data.labels.get(key) ?? key, value]),
    ['Amount', data.amount ?? '-'],
    ['Currency', data.currency ?? '-'],
    ['Date', data.date],
  ];
  for (const [label, value] of rows) write(`${label}: ${value}`);
  y -= 14;
  write('Signed electronically with a passkey by the investor and countersigned by the manager; the signatures are in this file.');
  return bytesOf(doc);
}
