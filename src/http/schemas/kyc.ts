// What the KYC routes (routes/kyc.ts, routes/kyc-documents.ts) share: the path of an investor's KYC
// in a deal and a KYC document as both routes answer it.
import { Type } from 'typebox';
import { kycMediaTypes, kycUploadKinds } from '../../domain/kyc.ts';
import { ExternalId, Timestamp } from './common.ts';

export const KycParams = Type.Object({ dealId: ExternalId, investorUserId: ExternalId });

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const KycDocument = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    dealId: Type.String(),
    investorUserId: Type.String(),
    kind: Type.String({ enum: [...kycUploadKinds] }),
    fileName: Type.String(),
    mediaType: Type.String({ enum: [...kycMediaTypes], description: 'what the first bytes of the file show' }),
    contentHash: Type.String({ description: 'SHA-256 of the bytes, hex' }),
    size: Type.Integer({ description: 'bytes' }),
    uploadedBy: Type.String(),
    uploadedAt: Timestamp,
    decision: Nullable(Type.Union([Type.Literal('accepted'), Type.Literal('rejected')], { description: "staff's decision; null: waiting for one" })),
    reason: Nullable(Type.String({ description: 'why another file is asked for (rejected), shown to the investor' })),
    reviewedBy: Nullable(Type.String()),
    reviewedAt: Nullable(Timestamp),
  },
  { title: 'KycDocument' },
);
