// KYC evidence (docs/concepts.md, "KYC evidence"): the documents a deal asks of an investor, what
// each request stands at from the files uploaded and staff's decisions, and how long an accepted
// level counts. A level counts for `validMonths` (12 unless configured) from the day it was
// accepted, by the same calendar rule as a category statement (monthsAfter), and is shown as
// expiring 30 days before. Once it has expired the investor is asked for every document again:
// only files uploaded after the expired level was accepted answer the new requests.
import { type CategoryStanding, categoryStanding, type InvestorCategory, monthsAfter } from './investor-category.ts';

/** The documents a deal may require: an individual's identity and address; an entity's register extract and beneficial owners too. */
export const kycDocumentKinds = ['identity', 'proof-of-address', 'register-extract', 'beneficial-owners'] as const;
export type KycDocumentKind = (typeof kycDocumentKinds)[number];
/** What an investor may upload: a required document, or the evidence of a category that needs a certificate. */
export const kycUploadKinds = [...kycDocumentKinds, 'category-evidence'] as const;
export type KycUploadKind = (typeof kycUploadKinds)[number];

export const isKycUploadKind = (value: unknown): value is KycUploadKind => (kycUploadKinds as readonly unknown[]).includes(value);

/** The files taken, by the bytes they begin with: whatever the request says, the content decides. */
export const kycMediaTypes = ['application/pdf', 'image/jpeg', 'image/png'] as const;
export type KycMediaType = (typeof kycMediaTypes)[number];

const magic: [KycMediaType, number[]][] = [
  ['application/pdf', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
];
/** The longest signature: how many bytes `mediaTypeOf` needs to decide. */
export const MAGIC_BYTES = 8;

/** The media type the first bytes of a file show, or undefined when they are none of kycMediaTypes. */
export function mediaTypeOf(head: Uint8Array): KycMediaType | undefined {
  return magic.find(([, bytes]) => bytes.every((b, i) => head[i] === b))?.[0];
}

/** The day a level accepted on `acceptedOn` no longer counts. */
export const kycExpiry = (acceptedOn: string, validMonths: number): string => monthsAfter(acceptedOn, validMonths);

/** The standing of a level that expires on `expiresOn`, on `today`: valid, expiring (30 days or fewer), expired. */
export const kycStanding = (expiresOn: string, today: string): CategoryStanding => categoryStanding(expiresOn, today);

/** Categories whose statement needs a certificate or a firm's assessment: an investor's confirmation of one waits for staff. */
export const certifiedCategories: readonly InvestorCategory[] = [
  'certified-high-net-worth',
  'certified-sophisticated',
  'elective-professional',
  'professional',
];
export const needsCertificate = (category: string): boolean => (certifiedCategories as readonly string[]).includes(category);

/** requested: nothing uploaded yet; submitted: waiting for staff; accepted; rejected: another one is asked for, with the reason. */
export type KycRequestState = 'requested' | 'submitted' | 'accepted' | 'rejected';

export interface KycUpload {
  kind: string;
  /** When it was uploaded (ISO time). */
  uploadedAt: string;
  decision: 'accepted' | 'rejected' | null;
  reason: string | null;
}

export interface KycRequest {
  kind: string;
  state: KycRequestState;
  /** Why the newest file was refused (rejected only). */
  reason: string | null;
}

/**
 * Each required document's request, from the uploads in order (oldest first): the newest file of
 * each kind uploaded after `since` (ISO time; the acceptance of a level that has expired) decides.
 */
export function kycRequests(required: readonly string[], uploads: readonly KycUpload[], since: string | null): KycRequest[] {
  return required.map((kind) => {
    const newest = uploads.filter((u) => u.kind === kind && (since === null || u.uploadedAt > since)).at(-1);
    if (!newest) return { kind, state: 'requested', reason: null };
    if (newest.decision === null) return { kind, state: 'submitted', reason: null };
    return { kind, state: newest.decision, reason: newest.decision === 'rejected' ? newest.reason : null };
  });
}

export const allAccepted = (requests: readonly KycRequest[]): boolean => requests.length > 0 && requests.every((r) => r.state === 'accepted');

/** An investor's newest accepted level, as the move path judges it. */
export interface KycLevelFact {
  level: number;
  expiresOn: string;
}

/** Whether `fact` has expired on `today`: then the level it named counts no more. */
export const kycExpired = (fact: KycLevelFact | null | undefined, today: string): boolean => !!fact && kycStanding(fact.expiresOn, today) === 'expired';
