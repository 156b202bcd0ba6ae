// The investor object of listActiveInvestors (all-transactions), as the interface shows it, and the body of
// PUT /investors/{investorUserId} (the same object without `id`; nullable members may be omitted).
// Here rather than in http/schemas/: the investor import validates each row against the same body
// schema, in the HTTP import and in the command line alike.
import { type Static, Type, type TSchema } from 'typebox';
import { StrictObject } from './strict-object.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Text = (max = 500) => Type.String({ maxLength: max });
const Name = Type.String({ minLength: 1, maxLength: 500 });

export const Classification = Type.Object(
  {
    investorClassId: Type.String(),
    organisation: Nullable(Type.String()),
    investorClass: Type.String(),
    name: Type.String(),
  },
  { title: 'Classification' },
);

export const Investor = Type.Object(
  {
    id: Type.String(),
    remoteId: Type.String(),
    dataSource: Type.String(),
    teamUserId: Nullable(Type.String()),
    kycCheckLevel: Nullable(Type.Integer()),
    contact: Type.Object({
      guid: Type.String(),
      externalId: Nullable(Type.String()),
      userType: Type.Number(),
      status: Type.String(),
      contact: Type.Object({
        forename: Type.String(),
        middleNames: Nullable(Type.String()),
        surname: Type.String(),
        title: Nullable(Type.String()),
        nickname: Nullable(Type.String()),
        dateOfBirth: Nullable(Type.String()),
        email: Nullable(Type.String()),
      }),
      username: Type.String(),
      profilePhotoFileKey: Nullable(Type.String()),
      name: Type.String(),
      classifications: Type.Array(Classification),
      fullName: Type.String(),
      tfaEnabled: Type.Boolean(),
      compliance: Type.String(),
    }),
  },
  { title: 'Investor' },
);

export const InvestorBody = StrictObject({
  remoteId: Name,
  dataSource: Name,
  teamUserId: Type.Optional(Nullable(Text(128))),
  kycCheckLevel: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1000 }))),
  contact: StrictObject({
    guid: Name,
    externalId: Type.Optional(Nullable(Text())),
    userType: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    status: Type.String({ minLength: 1, maxLength: 50, description: 'investors whose status is "active" are listed by all-transactions' }),
    contact: StrictObject({
      forename: Text(),
      middleNames: Type.Optional(Nullable(Text())),
      surname: Text(),
      title: Type.Optional(Nullable(Text(50))),
      nickname: Type.Optional(Nullable(Text())),
      dateOfBirth: Type.Optional(Nullable(Type.String({ format: 'date', description: 'YYYY-MM-DD' }))),
      email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 320 }))),
    }),
    username: Text(),
    profilePhotoFileKey: Type.Optional(Nullable(Text(1000))),
    name: Text(),
    classifications: Type.Array(
      StrictObject({
        investorClassId: Name,
        organisation: Type.Optional(Nullable(Text())),
        investorClass: Name,
        name: Text(),
      }),
      { maxItems: 100 },
    ),
    fullName: Name,
    tfaEnabled: Type.Boolean(),
    compliance: Type.String({ maxLength: 100 }),
  }),
});
export type InvestorBody = Static<typeof InvestorBody>;
