// Builders of request bodies for tests: realistic, unique, overridable.
import { randomUUID } from 'node:crypto';

export const uniqueId = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** A PUT /investors/{id} body. */
export function investorBody(overrides: { forename?: string; surname?: string; email?: string | null; status?: string; kycCheckLevel?: number | null; classes?: string[] } = {}) {
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
        dateOfBirth: '1985-12-10',
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
