// Sealing a PDF (docs/reference/signature-format.md): a signature field and its placeholder added by
// @signpdf/placeholder-pdf-lib, written as an incremental update (ISO 32000-1, 7.5.6) after the
// bytes as they were, then the CMS of pades-signer.ts put in by @signpdf/signpdf. The bytes before
// the update are left untouched, so the document the investor reviewed is a prefix of the signed
// one, and an earlier signature stays valid under a later one (the countersignature).
import { SignPdf } from '@signpdf/signpdf';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import { PDFArray, PDFDict, PDFDocument, PDFName, type PDFObject, type PDFRef, PDFString } from 'pdf-lib';
import { PadesSigner, type SealKey } from './pades-signer.ts';

export interface SealMeta {
  /** The signature field's name (unique in the document). */
  field: string;
  /** The signer as the signature dictionary names them. */
  name: string;
  reason: string;
  location: string;
  contactInfo: string;
  signingTime: Date;
}

/** Room for the CMS: a chain of a few certificates and the signature, hex-encoded twice over. */
const SIGNATURE_LENGTH = 16_384;

const bytesOf = (object: PDFObject): Uint8Array => {
  const out = new Uint8Array(object.sizeInBytes());
  object.copyBytesInto(out, 0);
  return out;
};
const same = (a: Uint8Array | undefined, b: Uint8Array) => a !== undefined && Buffer.from(a).equals(Buffer.from(b));

/** The offset after the last `startxref`: where the previous cross-reference section begins. */
function previousXref(bytes: Buffer): number {
  const at = bytes.lastIndexOf('startxref');
  const match = at < 0 ? null : /^startxref\s+(\d+)/.exec(bytes.subarray(at, at + 40).toString('latin1'));
  if (!match) throw new Error('the PDF has no startxref');
  return Number(match[1]);
}

/** The objects added or changed since `before` was taken, as an incremental update after `original`. */
function incrementalUpdate(original: Buffer, doc: PDFDocument, before: Map<string, Uint8Array>): Buffer {
  const parts: Buffer[] = [original, Buffer.from(original.at(-1) === 0x0a ? '' : '\n', 'latin1')];
  let offset = parts[0]!.length + parts[1]!.length;
  const entries: { ref: PDFRef; offset: number }[] = [];
  const changed = doc.context
    .enumerateIndirectObjects()
    .filter(([ref, object]) => !same(before.get(ref.toString()), bytesOf(object)))
    .sort(([a], [b]) => a.objectNumber - b.objectNumber);
  for (const [ref, object] of changed) {
    const piece = Buffer.concat([
      Buffer.from(`${ref.objectNumber} ${ref.generationNumber} obj\n`, 'latin1'),
      bytesOf(object),
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    entries.push({ ref, offset });
    parts.push(piece);
    offset += piece.length;
  }
  const xrefAt = offset;
  const xref = ['xref'];
  for (const { ref, offset: at } of entries) {
    xref.push(`${ref.objectNumber} 1`, `${String(at).padStart(10, '0')} ${String(ref.generationNumber).padStart(5, '0')} n\r`);
  }
  const info = doc.context.trailerInfo;
  const trailer = [
    `/Size ${doc.context.largestObjectNumber + 1}`,
    `/Root ${String(info.Root)}`,
    ...(info.Info ? [`/Info ${info.Info.toString()}`] : []),
    ...(info.ID ? [`/ID ${info.ID.toString()}`] : []),
    `/Prev ${previousXref(original)}`,
  ];
  parts.push(Buffer.from(`${xref.join('\n')}\ntrailer\n<< ${trailer.join(' ')} >>\nstartxref\n${xrefAt}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/**
 * Seals `pdf` (a PDF with a classic cross-reference table, as fillAgreement writes it, or one
 * sealed before): the signature is over every byte of the result but its own contents.
 */
export async function sealPdf(pdf: Buffer, key: SealKey, meta: SealMeta): Promise<Buffer> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const before = new Map(doc.context.enumerateIndirectObjects().map(([ref, object]) => [ref.toString(), bytesOf(object)]));
  pdflibAddPlaceholder({
    pdfDoc: doc,
    reason: meta.reason,
    contactInfo: meta.contactInfo,
    name: meta.name,
    location: meta.location,
    signingTime: meta.signingTime,
    signatureLength: SIGNATURE_LENGTH,
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    appName: 'dealflow',
  });
  // The placeholder's field is always "Signature1": the newest field gets its own name.
  const fields = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).lookup(PDFName.of('Fields'), PDFArray);
  const widget = fields.lookup(fields.size() - 1, PDFDict);
  widget.set(PDFName.of('T'), PDFString.of(meta.field));
  return new SignPdf().sign(incrementalUpdate(pdf, doc, before), new PadesSigner(key));
}
