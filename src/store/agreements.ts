// Subscription agreements (migration 0053): a deal's templates (the newest is the one in use), the
// passkey challenges that bind a document's hash, the signatures, and the development seal.
import type { AgreementState } from '../domain/workflow.ts';
import type { Db } from './schema.ts';

export type SignerRole = 'investor' | 'countersigner';

export interface TemplateRow {
  id: string;
  dealId: string;
  contentHash: string;
  uploadedBy: string;
  uploadedAt: string;
}

export interface SignatureRow {
  id: string;
  dealId: string;
  investorUserId: string;
  role: SignerRole;
  signer: string;
  /** The PDF the signer's passkey bound (its SHA-256, hex). */
  signedHash: string;
  /** The sealed PDF made of it. */
  sealedHash: string;
  credentialId: string;
  ip: string;
  signedAt: string;
}

export interface ChallengeRow {
  dealId: string;
  investorUserId: string;
  role: SignerRole;
  signer: string;
  contentHash: string;
}

export async function insertTemplate(db: Db, row: Omit<TemplateRow, 'uploadedAt'> & { uploadedAt: Date }): Promise<TemplateRow> {
  await db
    .insertInto('agreement_templates')
    .values({ id: row.id, deal_id: row.dealId, content_hash: row.contentHash, uploaded_by: row.uploadedBy, uploaded_at: row.uploadedAt })
    .execute();
  return { ...row, uploadedAt: row.uploadedAt.toISOString() };
}

/** The deal's template in use: the newest uploaded. */
export async function currentTemplate(db: Db, dealId: string): Promise<TemplateRow | undefined> {
  const r = await db
    .selectFrom('agreement_templates')
    .selectAll()
    .where('deal_id', '=', dealId)
    .orderBy('uploaded_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r && { id: r.id, dealId: r.deal_id, contentHash: r.content_hash, uploadedBy: r.uploaded_by, uploadedAt: r.uploaded_at.toISOString() };
}

export async function insertChallenge(db: Db, challenge: string, row: ChallengeRow, createdAt: Date, expiresAt: Date): Promise<void> {
  await db.deleteFrom('agreement_challenges').where('expires_at', '<', createdAt).execute();
  await db
    .insertInto('agreement_challenges')
    .values({
      challenge,
      deal_id: row.dealId,
      investor_user_id: row.investorUserId,
      role: row.role,
      signer: row.signer,
      content_hash: row.contentHash,
      created_at: createdAt,
      expires_at: expiresAt,
    })
    .execute();
}

/** Marks an unanswered, unexpired challenge answered, once: what it binds, or undefined. */
export async function consumeChallenge(db: Db, challenge: string, now: Date): Promise<ChallengeRow | undefined> {
  const r = await db
    .updateTable('agreement_challenges')
    .set({ answered_at: now })
    .where('challenge', '=', challenge)
    .where('answered_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
  return r && { dealId: r.deal_id, investorUserId: r.investor_user_id, role: r.role, signer: r.signer, contentHash: r.content_hash };
}

type SignatureRecord = {
  id: string;
  deal_id: string;
  investor_user_id: string;
  role: SignerRole;
  signer: string;
  signed_hash: string;
  sealed_hash: string;
  credential_id: string;
  ip: string;
  signed_at: Date;
};
const toSignature = (r: SignatureRecord): SignatureRow => ({
  id: r.id,
  dealId: r.deal_id,
  investorUserId: r.investor_user_id,
  role: r.role,
  signer: r.signer,
  signedHash: r.signed_hash,
  sealedHash: r.sealed_hash,
  credentialId: r.credential_id,
  ip: r.ip,
  signedAt: r.signed_at.toISOString(),
});

/** Adds a signature; false when the agreement has this role's signature already. */
export async function insertSignature(db: Db, row: Omit<SignatureRow, 'signedAt'> & { signedAt: Date; assertion: unknown }): Promise<boolean> {
  const added = await db
    .insertInto('agreement_signatures')
    .values({
      id: row.id,
      deal_id: row.dealId,
      investor_user_id: row.investorUserId,
      role: row.role,
      signer: row.signer,
      signed_hash: row.signedHash,
      sealed_hash: row.sealedHash,
      credential_id: row.credentialId,
      assertion: JSON.stringify(row.assertion),
      ip: row.ip,
      signed_at: row.signedAt,
    })
    .onConflict((oc) => oc.columns(['deal_id', 'investor_user_id', 'role']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return added !== undefined;
}

/** The signatures of the deal's agreements (of one investor's, with `investorUserId`), oldest first. */
export async function signaturesOf(db: Db, dealId: string, investorUserId?: string): Promise<SignatureRow[]> {
  let query = db.selectFrom('agreement_signatures').selectAll().where('deal_id', '=', dealId);
  if (investorUserId !== undefined) query = query.where('investor_user_id', '=', investorUserId);
  const rows = await query.orderBy('signed_at').orderBy('id').execute();
  return rows.map(toSignature);
}

export async function findSealKey(db: Db, name: string): Promise<{ privateKey: Uint8Array; certificate: Uint8Array } | undefined> {
  const r = await db.selectFrom('seal_keys').select(['private_key', 'certificate']).where('name', '=', name).executeTakeFirst();
  return r && { privateKey: new Uint8Array(r.private_key), certificate: new Uint8Array(r.certificate) };
}

/** Keeps a seal under `name` unless one is kept already (two instances starting at once keep one). */
export async function insertSealKey(db: Db, name: string, key: { privateKey: Uint8Array; certificate: Uint8Array }, at: Date): Promise<void> {
  await db
    .insertInto('seal_keys')
    .values({ name, private_key: key.privateKey, certificate: key.certificate, created_at: at })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/** What the investor's journey in the deal captured; undefined without a journey. */
export async function capturedOf(db: Db, dealId: string, investorUserId: string): Promise<Record<string, string> | undefined> {
  const r = await db.selectFrom('journeys').select('captured').where('deal_id', '=', dealId).where('investor_user_id', '=', investorUserId).executeTakeFirst();
  return r?.captured;
}

/** Where an agreement stands, from the roles of its signatures. */
const stateOfRoles = (roles: readonly string[]): AgreementState =>
  roles.includes('countersigner') ? 'countersigned' : roles.length > 0 ? 'signed' : 'to-sign';

/** Where the investor's agreement in the deal stands, from its signatures. */
export async function agreementStateOf(db: Db, dealId: string, investorUserId: string): Promise<AgreementState> {
  return (await agreementStatesOf(db, investorUserId, [dealId])).get(dealId)!;
}

/** Where the investor's agreement stands in each of these deals, in one read. */
export async function agreementStatesOf(db: Db, investorUserId: string, dealIds: readonly string[]): Promise<Map<string, AgreementState>> {
  const rows =
    dealIds.length === 0
      ? []
      : await db
          .selectFrom('agreement_signatures')
          .select(['deal_id', 'role'])
          .where('investor_user_id', '=', investorUserId)
          .where('deal_id', 'in', dealIds)
          .execute();
  return new Map(dealIds.map((dealId) => [dealId, stateOfRoles(rows.filter((r) => r.deal_id === dealId).map((r) => r.role))]));
}
