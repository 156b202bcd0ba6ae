// Builders of request bodies for tests: realistic, unique, overridable.
import { randomUUID } from 'node:crypto';

export const uniqueId = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** A PUT /investors/{id} body. */
export function investorBody(
  overrides: {
    forename?: string;
    surname?: string;
    email?: string | null;
    status?: string;
    kycCheckLevel?: number | null;
    classes?: string[];
    dateOfBirth?: string | null;
  } = {},
) {
  const forename = overrides.forename ?? 'Ada';
  const surname = overrides.surname ?? 'Lovelace';
  const fullName = `${forename} ${surname}`;
  return {
    remoteId: uniqueId('remote'),
    dataSource: 'platform',
    teamUserId: null,
    kycCheckLevel: overrides.kycCheckLevel === undefined ? 2 : overrides.kycCheckLevel,
    contact: {
      guid: randomUUID(),
      externalId: null,
      userType: 1,
      status: overrides.status ?? 'active',
      contact: {
        forename,
        middleNames: null,
        surname,
        title: 'Ms',
        nickname: null,
        dateOfBirth: overrides.dateOfBirth === undefined ? '1985-12-10' : overrides.dateOfBirth,
        email: overrides.email === undefined ? `${forename}.${surname}@example.com`.toLowerCase() : overrides.email,
      },
      username: `${forename}.${surname}`.toLowerCase(),
      profilePhotoFileKey: null,
      name: fullName,
      classifications: (overrides.classes ?? ['sophisticated']).map((investorClass) => ({
        investorClassId: `class-${investorClass}`,
        organisation: null,
        investorClass,
        name: investorClass[0]!.toUpperCase() + investorClass.slice(1),
      })),
      fullName,
      tfaEnabled: true,
      compliance: 'approved',
    },
  };
}

/** A fresh positive integer asset id (assets have the platform's integer ids). */
export const uniqueAssetId = () => 1 + Math.floor(Math.random() * 1e12);

/** A POST /portfolio/transactions/subscriptions body: 10 units at 100.5 = 1005. */
export function subscriptionBody(assetId: number, investorId: string, overrides: Record<string, unknown> = {}) {
  return {
    asset_id: assetId,
    investor_id: investorId,
    units: 10,
    price_per_unit: 100.5,
    total: 1005,
    fee: 12.5,
    funding_source: 'cash_account',
    invoice_date: '2026-03-01',
    settlement_date: '2026-03-05',
    source: 'crm',
    source_id: uniqueId('crm'),
    description: 'Series A allocation',
    ...overrides,
  };
}
