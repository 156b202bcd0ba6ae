// Staff people and their console sign-in (docs/reference/staff.md).
import { Type } from 'typebox';
import { Timestamp } from './common.ts';
import { PublicKeyCredentialCreationOptionsJSON } from './portal.ts';

export const StaffRole = Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('approver'), Type.Literal('admin')], {
  description: 'viewer < operator < approver < admin: each can do everything the ones before it can (docs/reference/roles.md)',
});

export const StaffSession = Type.Object(
  {
    personId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    role: StaffRole,
    csrfToken: Type.String({ description: 'Send it as X-CSRF-Token with every write through /console/api' }),
    expiresAt: Type.String({
      format: 'date-time',
      description: 'When the session ends unless used again (each use renews it by STAFF_SESSION_MINUTES, up to STAFF_SESSION_MAX_HOURS after sign-in)',
    }),
  },
  { title: 'StaffSession', description: 'A signed-in staff person: the session cookie (dealflow_console) is set beside it' },
);

export const StaffRegistrationOptions = Type.Object(
  {
    person: Type.Object({ personId: Type.String({ format: 'uuid' }), name: Type.String() }),
    options: PublicKeyCredentialCreationOptionsJSON,
  },
  { title: 'StaffPasskeyRegistrationOptions' },
);

export const StaffInvitationBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$' }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    role: StaffRole,
  },
  { additionalProperties: false },
);

export const StaffInvitation = Type.Object(
  {
    personId: Type.String({ format: 'uuid' }),
    email: Type.String(),
    role: StaffRole,
    url: Type.String({ description: 'The link to send the person: PUBLIC_URL/console/#/join/<token>; works once' }),
    expiresAt: Timestamp,
  },
  { title: 'StaffInvitation' },
);

export const StaffPerson = Type.Object(
  {
    personId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    email: Type.String(),
    role: StaffRole,
    createdAt: Timestamp,
    deactivatedAt: Type.Union([Timestamp, Type.Null()]),
    lastSignInAt: Type.Union([Timestamp, Type.Null()]),
    liveSessions: Type.Integer({ minimum: 0 }),
  },
  { title: 'StaffPerson' },
);

export const StaffPeople = Type.Object({ people: Type.Array(StaffPerson) }, { title: 'StaffPeople' });

export const PersonParams = Type.Object({ personId: Type.String({ format: 'uuid' }) });

export const RoleBody = Type.Object({ role: StaffRole }, { additionalProperties: false });

export const DigestBody = Type.Object(
  { dailyDigest: Type.Boolean({ description: 'false: no daily digest e-mail for this person; true: one a day from MAIL_DIGEST_HOUR (UTC)' }) },
  { additionalProperties: false },
);

export const DigestSetting = Type.Object({ personId: Type.String({ format: 'uuid' }), dailyDigest: Type.Boolean() }, { title: 'StaffDigestSetting' });

export const PersonChanged = Type.Object({ personId: Type.String({ format: 'uuid' }) }, { title: 'StaffPersonChanged' });

export const Deactivated = Type.Object(
  { revokedKeys: Type.Array(Type.String({ format: 'uuid' }), { description: 'The API keys of the person, revoked with them' }) },
  { title: 'StaffDeactivated' },
);

export const StaffSessions = Type.Object(
  {
    sessions: Type.Array(
      Type.Object({ id: Type.String({ format: 'uuid' }), createdAt: Timestamp, lastUsedAt: Timestamp, expiresAt: Timestamp }, { title: 'StaffSessionSummary' }),
    ),
  },
  { title: 'StaffSessions' },
);
