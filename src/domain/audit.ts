// The audit log's proofs, pure: the canonical form of an entry (RFC 8785 JSON), the hash chain that
// links an entry to the one before it in its chain, and the Merkle tree of a checkpoint (RFC 9162
// section 2.1: leaf = SHA-256(0x00 ‖ entry hash), node = SHA-256(0x01 ‖ left ‖ right)) with its
// inclusion proofs.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export const auditEntryTypes = [
  'journey.moved',
  'event.edited',
  'edit-request.decided',
  'subscription.booked',
  'payment-line.decided',
  'workflow.applied',
  'token.created',
  'token.revoked',
  'investor.erased',
  'portal.invitation-created',
  'portal.invitation-revoked',
  'portal.passkey-registered',
  'portal.passkey-replaced',
  'portal.signed-in',
  'portal.signed-out',
  'staff.person-added',
  'staff.role-changed',
  'staff.deactivated',
  'staff.digest-changed',
  'staff.invitation-created',
  'staff.invitation-revoked',
  'staff.passkey-registered',
  'staff.passkey-replaced',
  'staff.signed-in',
  'staff.signed-out',
  'sanctions.list-loaded',
  'sanctions.hit-decided',
  'investor.category-recorded',
  'kyc.check-started',
  'kyc.check-decided',
  'investor.category-confirmed',
  'investor.language-changed',
  'deal.kyc-settings-changed',
  'kyc.document-uploaded',
  'kyc.document-accepted',
  'kyc.document-rejected',
  'kyc.level-accepted',
  'document.uploaded',
  'document.released',
  'document.read',
  'agreement.template-uploaded',
  'agreement.read',
  'agreement.signed',
  'agreement.countersigned',
  'approval.proposed',
  'approval.approved',
  'approval.rejected',
  'approval.refused',
] as const;
export type AuditEntryType = (typeof auditEntryTypes)[number];

/** The hash before a chain's first entry. */
export const GENESIS = '0'.repeat(64);

/** Chains where writes already take turns: a journey (its row lock), a workflow (its row lock). */
export const journeyChain = (dealId: string, investorUserId: string) => `journey:${dealId}/${investorUserId}`;
export const workflowChain = (dealId: string) => `workflow:${dealId}`;
/** A deal's documents: each upload, release and read (operations/documents.ts). */
export const documentsChain = (dealId: string) => `documents:${dealId}`;
/** A deal's four-eyes proposals and their decisions (operations/proposals.ts), head in `audit_heads`. */
export const approvalsChain = (dealId: string) => `approvals:${dealId}`;
/** Chains whose head lives in `audit_heads` (rare writes: one row lock per chain is harmless). */
export const TOKENS_CHAIN = 'tokens';
export const DIRECTORY_CHAIN = 'directory';
export const SANCTIONS_CHAIN = 'sanctions';
/** An investor's portal access (invitations, passkeys, sign-ins), head in `audit_heads`. */
export const portalChain = (investorUserId: string) => `portal:${investorUserId}`;
/** A staff person: added, role changed, deactivated, and their console access (invitations, passkeys, sign-ins). */
export const staffChain = (personId: string) => `staff:${personId}`;
/** One-entry chains: a booking, a reconciliation decision (no head to lock; checkpoints order them). */
export const subscriptionChain = (subscriptionId: string) => `subscription:${subscriptionId}`;
export const paymentDecisionChain = (decisionId: string) => `payment-decision:${decisionId}`;

/**
 * What an entry proves. `change` names what changed by ids, step ids, amounts and field values, and
 * never carries directory personal data (names, e-mails): those may have to be erased, and the
 * chain must stay verifiable after.
 */
export interface AuditEntry {
  chain: string;
  seq: number;
  type: AuditEntryType;
  /** The user id the change is recorded under, and the token (API key id, or JWT key) that made it. */
  principal: string;
  tokenId: string | null;
  at: string;
  change: Record<string, unknown>;
}

export interface HashedEntry extends AuditEntry {
  prevHash: string;
  hash: string;
}

/** The bytes an entry's hash covers besides the previous hash: its RFC 8785 JSON. */
export function canonicalEntry(entry: AuditEntry): string {
  const { chain, seq, type, principal, tokenId, at, change } = entry;
  return canonicalize({ chain, seq, type, principal, tokenId, at, change })!;
}

const sha256 = (...parts: Buffer[]) => {
  const h = createHash('sha256');
  for (const part of parts) h.update(part);
  return h.digest();
};

/** SHA-256(previous hash ‖ canonical entry), hex. */
export function entryHash(prevHash: string, entry: AuditEntry): string {
  return sha256(Buffer.from(prevHash, 'hex'), Buffer.from(canonicalEntry(entry), 'utf8')).toString('hex');
}

/** The entry that follows a chain's head. */
export function chainEntry(head: { seq: number; hash: string | null }, entry: Omit<AuditEntry, 'seq'>): HashedEntry {
  const full: AuditEntry = { ...entry, seq: head.seq + 1 };
  const prevHash = head.hash ?? GENESIS;
  return { ...full, prevHash, hash: entryHash(prevHash, full) };
}

/** What a journey's move entry records of its event (verify compares the event with it). */
export interface MovedEvent {
  id: string;
  dealId: string;
  investorUserId: string;
  seq: number;
  fromStepId: string | null;
  toStepId: string;
  data: Record<string, string>;
  createdAt: string;
}

/**
 * A move's entry in its journey's chain, after `head`: moves, workflow migrations (`extra` says
 * which version they migrated to) and seeded journeys record the same change.
 */
export function moveEntry(
  head: { seq: number; hash: string | null },
  event: MovedEvent,
  by: { principal: string; tokenId: string | null },
  extra: Record<string, unknown> = {},
): HashedEntry {
  return chainEntry(head, {
    chain: journeyChain(event.dealId, event.investorUserId),
    type: 'journey.moved',
    principal: by.principal,
    tokenId: by.tokenId,
    at: event.createdAt,
    change: {
      eventId: event.id,
      dealId: event.dealId,
      investorUserId: event.investorUserId,
      seq: event.seq,
      fromStepId: event.fromStepId,
      toStepId: event.toStepId,
      data: event.data,
      ...extra,
    },
  });
}

const leafHash = (entryHashHex: string) => sha256(Buffer.from([0]), Buffer.from(entryHashHex, 'hex'));
const nodeHash = (left: Buffer, right: Buffer) => sha256(Buffer.from([1]), left, right);

/** The largest power of two smaller than n (RFC 9162's split point), n > 1. */
const split = (n: number) => 2 ** Math.floor(Math.log2(n - 1));

function treeHash(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return leaves[0]!;
  const k = split(leaves.length);
  return nodeHash(treeHash(leaves.slice(0, k)), treeHash(leaves.slice(k)));
}

/** RFC 9162 MTH over the entries' hashes, in order. */
export function merkleRoot(entryHashes: readonly string[]): string {
  return treeHash(entryHashes.map(leafHash)).toString('hex');
}

/** RFC 9162 PATH(m, D[n]): the sibling hashes from leaf m up to the root. */
export function inclusionProof(entryHashes: readonly string[], index: number): string[] {
  const path = (m: number, leaves: Buffer[]): Buffer[] => {
    if (leaves.length <= 1) return [];
    const k = split(leaves.length);
    return m < k ? [...path(m, leaves.slice(0, k)), treeHash(leaves.slice(k))] : [...path(m - k, leaves.slice(k)), treeHash(leaves.slice(0, k))];
  };
  return path(index, entryHashes.map(leafHash)).map((b) => b.toString('hex'));
}

/**
 * The same tree built bottom up, every level kept (hex): level 0 the leaf hashes, each next level
 * pairs neighbours, and a last node without a right neighbour moves up unchanged, which yields
 * RFC 9162's left-filled tree. The last level is the root alone. The sealer stores levels 1 and up,
 * so a proof reads log2(n) nodes instead of rebuilding the tree.
 */
export function merkleLevels(entryHashes: readonly string[]): string[][] {
  let level: Buffer[] = entryHashes.map(leafHash);
  const levels = [level];
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? nodeHash(level[i]!, level[i + 1]!) : level[i]!);
    levels.push(next);
    level = next;
  }
  return levels.map((l) => l.map((b) => b.toString('hex')));
}

/**
 * Where the hashes of leaf `index`'s inclusion proof sit in `merkleLevels` of a tree of `size`
 * leaves, bottom first (the order of RFC 9162's PATH): at each level the sibling, when it exists.
 * Level 0 holds leaf hashes, SHA-256(0x00 ‖ entry hash).
 */
export function proofNodes(index: number, size: number): { level: number; index: number }[] {
  const path: { level: number; index: number }[] = [];
  for (let level = 0, i = index, width = size; width > 1; level++, i = Math.floor(i / 2), width = Math.ceil(width / 2)) {
    const sibling = i % 2 === 0 ? i + 1 : i - 1;
    if (sibling < width) path.push({ level, index: sibling });
  }
  return path;
}

/** SHA-256(0x00 ‖ entry hash), hex: an entry's leaf in a checkpoint's tree. */
export const leafHashOf = (entryHashHex: string) => leafHash(entryHashHex).toString('hex');

/** Checks an inclusion proof (RFC 9162 section 2.1.3.2). */
export function verifyInclusion(entryHashHex: string, index: number, treeSize: number, proof: readonly string[], root: string): boolean {
  if (index >= treeSize) return false;
  let fn = index;
  let sn = treeSize - 1;
  let r = leafHash(entryHashHex);
  for (const p of proof) {
    const sibling = Buffer.from(p, 'hex');
    if (sn === 0) return false;
    if ((fn & 1) === 1 || fn === sn) {
      r = nodeHash(sibling, r);
      if ((fn & 1) === 0)
        while ((fn & 1) === 0 && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
    } else {
      r = nodeHash(r, sibling);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 && r.toString('hex') === root;
}

/** A checkpoint's own hash, chaining it to the one before (so a dropped checkpoint shows). */
export function checkpointHash(
  prevHash: string,
  checkpoint: { number: number; upToXid: string; upToPosition: string; size: number; root: string; sealedAt: string },
): string {
  return sha256(Buffer.from(prevHash, 'hex'), Buffer.from(canonicalize(checkpoint)!, 'utf8')).toString('hex');
}

/** A reconciliation decision's entry: a chain of its own (`payment-decision:<id>`), like a booking's. */
export function paymentDecisionAuditEntry(
  d: {
    id: string;
    lineId: string;
    action: string;
    outcome: string | null;
    status: string;
    dealId?: string | null;
    investorUserId?: string | null;
    eventId?: string | null;
    reason?: string | null;
    by: string;
    at: Date;
  },
  allocations: { dealId: string; investorUserId: string; amount: string; currency: string }[],
): HashedEntry {
  return chainEntry(
    { seq: 0, hash: null },
    {
      chain: paymentDecisionChain(d.id),
      type: 'payment-line.decided',
      principal: d.by,
      tokenId: null,
      at: d.at.toISOString(),
      change: JSON.parse(
        JSON.stringify({
          decisionId: d.id,
          lineId: d.lineId,
          action: d.action,
          outcome: d.outcome,
          status: d.status,
          dealId: d.dealId ?? null,
          investorUserId: d.investorUserId ?? null,
          eventId: d.eventId ?? null,
          reason: d.reason ?? null,
          allocations: allocations.map(({ dealId, investorUserId, amount, currency }) => ({ dealId, investorUserId, amount, currency })),
        }),
      ) as Record<string, unknown>,
    },
  );
}
