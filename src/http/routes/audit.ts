// The audit log (admin only): checkpoint roots to anchor elsewhere, a deal's entries with their
// hashes and inclusion proofs, and the erasure of an investor's personal data.
import { Type } from 'typebox';
import { getDealAudit, listAuditCheckpoints } from '../../operations/audit.ts';
import { eraseInvestor } from '../../operations/erasure.ts';
import type { Api, AppContext } from '../context.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { Approval } from '../schemas/approvals.ts';
import { ExternalId, Page, PageQuery, StrictObject, Timestamp } from '../schemas/common.ts';
import { answer, writeOf } from '../writes.ts';

const Hash = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256, hex' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const Checkpoint = Type.Object(
  {
    number: Type.Integer({ minimum: 1 }),
    upToXid: Type.String({ description: 'with upToPosition, the last entry covered, in (xid, position) order' }),
    upToPosition: Type.String(),
    size: Type.Integer({ description: 'entries covered: those after the previous checkpoint, up to this one’s bound' }),
    root: Hash,
    prevHash: Hash,
    hash: Type.String({ description: 'SHA-256(prevHash ‖ RFC 8785 JSON of number, upToXid, upToPosition, size, root, sealedAt)' }),
    sealedAt: Timestamp,
  },
  { title: 'AuditCheckpoint' },
);

const AuditEntry = Type.Object(
  {
    chain: Type.String({ description: 'journey:<deal>/<investor> or workflow:<deal>' }),
    seq: Type.Integer({ minimum: 1 }),
    position: Type.Integer(),
    type: Type.String(),
    principal: Type.String(),
    tokenId: Nullable(Type.String()),
    at: Timestamp,
    change: Type.Record(Type.String(), Type.Unknown()),
    prevHash: Hash,
    hash: Type.String({ description: 'SHA-256(prevHash ‖ RFC 8785 JSON of chain, seq, type, principal, tokenId, at, change)' }),
    inclusion: Nullable(
      Type.Object({
        checkpoint: Type.Integer(),
        treeSize: Type.Integer(),
        leafIndex: Type.Integer(),
        root: Hash,
        path: Type.Array(Hash, { description: 'RFC 9162 inclusion proof: leaf = SHA-256(0x00 ‖ hash), node = SHA-256(0x01 ‖ left ‖ right)' }),
      }),
    ),
  },
  { title: 'AuditEntry' },
);

const Erasure = Type.Object(
  {
    investorUserId: Type.String(),
    erasedAt: Timestamp,
    lastEventAt: Nullable(Timestamp),
    retainedUntil: Nullable(Timestamp),
    overrideRetention: Type.Boolean({ description: 'true when erased before the retention period ended' }),
  },
  { title: 'Erasure' },
);

export function auditRoutes(app: Api, ctx: AppContext) {
  app.get(
    '/audit/checkpoints',
    {
      schema: {
        tags: ['management'],
        summary: 'Audit checkpoints: Merkle roots over the audit log, oldest first',
        querystring: Type.Object(PageQuery),
        response: { 200: Page(Checkpoint, 'AuditCheckpointPage') },
      },
    },
    async (request) => listAuditCheckpoints(ctx, { limit: request.query.limit ?? 20, page: request.query.page ?? 1 }),
  );

  app.get(
    '/deals/deal/:dealId/audit',
    {
      schema: {
        tags: ['management'],
        summary: 'A deal’s audit entries in checkpoint order, with hashes and inclusion proofs',
        params: Type.Object({ dealId: ExternalId }),
        querystring: Type.Object(PageQuery),
        response: { 200: Page(AuditEntry, 'AuditEntryPage') },
      },
    },
    async (request) => getDealAudit(ctx, request.params.dealId, { limit: request.query.limit ?? 20, page: request.query.page ?? 1 }),
  );

  app.post(
    '/investors/:investorUserId/erasure',
    {
      schema: {
        tags: ['management'],
        summary: 'Erase the investor’s personal data from the directory (after the retention period)',
        params: Type.Object({ investorUserId: ExternalId }),
        body: StrictObject({
          overrideRetention: Type.Optional(Type.Boolean({ description: 'erase before the retention period ends; needs reason' })),
          reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'the legal basis of an early erasure' })),
        }),
        headers: IdempotencyHeaders,
        response: { 200: Erasure, 202: Approval },
      },
      // No body: erase under the retention rule.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) =>
      answer(reply, await eraseInvestor(ctx, writeOf(ctx, request), request.params.investorUserId, request.body, ctx.config.erasureRetentionYears)),
  );
}
