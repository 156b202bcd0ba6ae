// The generated people of `dealflow seed` and the benchmarks' data sets: names drawn from a seeded
// generator, so every machine makes the same directory.
import { mulberry32 } from '../domain/random.ts';
import type { Investor } from '../domain/investor.ts';

/** Seeded, so the demo is the same on every machine. */
export function random(seed: number) {
  const next = mulberry32(seed);
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  return { next, int, pick };
}
export type Random = ReturnType<typeof random>;

export const forenames = [
  'Amelia',
  'Oliver',
  'Isla',
  'George',
  'Ava',
  'Noah',
  'Mia',
  'Arthur',
  'Ivy',
  'Leo',
  'Freya',
  'Oscar',
  'Sofia',
  'Theo',
  'Grace',
  'Lucas',
  'Chloé',
  'Mateo',
  'Ingrid',
  'Kenji',
  'Priya',
  'Tomás',
  'Zainab',
  'Hugo',
  'Elena',
  'Rafael',
  'Nadia',
  'Felix',
  'Aoife',
  'Samuel',
];
const surnames = [
  'Smith',
  'Jones',
  'Taylor',
  'Brown',
  'Williams',
  'Wilson',
  'Johnson',
  'Davies',
  'Patel',
  'Wright',
  'Müller',
  'García',
  'Rossi',
  'Dubois',
  'Nakamura',
  "O'Brien",
  'Kowalski',
  'Andersson',
  'Silva',
  'Chen',
  'Okafor',
  'Haddad',
  'Novak',
  'Larsen',
  'Fischer',
  'Moreau',
  'Costa',
  'Ivanova',
  'Murphy',
  'Khan',
];
const classes = ['retail', 'sophisticated', 'professional', 'institutional'] as const;
export const currencies = ['EUR', 'GBP', 'USD', 'CHF'];

export function makeInvestor(id: string, n: number, rnd: Random): Investor {
  const forename = rnd.pick(forenames);
  const surname = rnd.pick(surnames);
  const fullName = `${forename} ${surname}`;
  const email = `${forename}.${surname}.${n}@example.com`
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z0-9.@]/g, '');
  const investorClass = rnd.pick(classes);
  return {
    id,
    remoteId: `crm-${id}`,
    dataSource: 'crm',
    teamUserId: null,
    kycCheckLevel: rnd.int(0, 3),
    contact: {
      guid: `guid-${id}`,
      externalId: null,
      userType: 1,
      status: rnd.next() < 0.9 ? 'active' : 'inactive',
      contact: {
        forename,
        middleNames: null,
        surname,
        title: null,
        nickname: null,
        dateOfBirth: `19${rnd.int(50, 99)}-0${rnd.int(1, 9)}-1${rnd.int(0, 9)}`,
        email,
      },
      username: email,
      profilePhotoFileKey: null,
      name: fullName,
      classifications: [
        { investorClassId: `class-${investorClass}`, organisation: null, investorClass, name: investorClass[0]!.toUpperCase() + investorClass.slice(1) },
      ],
      fullName,
      tfaEnabled: rnd.next() < 0.7,
      compliance: 'approved',
    },
  };
}
