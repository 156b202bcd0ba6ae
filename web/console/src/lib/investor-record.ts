// The few things staff edit about an investor, and the directory entry (PUT /investors/{id}) they
// become. Editing keeps every member the form does not show as it was.
import type { InvestorRecord } from './api.ts';

export interface InvestorInput {
  id: string;
  forename: string;
  surname: string;
  email: string;
  kycCheckLevel: string;
  classifications: string;
  status: string;
}

export const INVESTOR_ID = /^[A-Za-z0-9._:@-]{1,128}$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** Problems of one input, by member; empty when it can be sent. */
export function investorProblems(input: InvestorInput): Partial<Record<keyof InvestorInput, string>> {
  const problems: Partial<Record<keyof InvestorInput, string>> = {};
  if (!INVESTOR_ID.test(input.id)) problems.id = 'an id of 1–128 letters, digits, ".", "_", ":", "@" or "-"';
  if (!input.forename.trim()) problems.forename = 'a first name';
  if (!input.surname.trim()) problems.surname = 'a last name';
  if (input.email.trim() && !EMAIL.test(input.email.trim())) problems.email = 'an e-mail address such as ada@example.com';
  if (input.kycCheckLevel.trim() && !/^\d{1,3}$/.test(input.kycCheckLevel.trim())) problems.kycCheckLevel = 'a whole KYC level (0–999) or nothing';
  return problems;
}

const classId = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'class';

export function toRecord(input: InvestorInput, existing?: InvestorRecord): InvestorRecord {
  const forename = input.forename.trim();
  const surname = input.surname.trim();
  const fullName = `${forename} ${surname}`;
  const email = input.email.trim() || null;
  const classes = input.classifications
    .split(/[;,]/)
    .map((c) => c.trim())
    .filter(Boolean);
  const kept = existing?.contact.classifications ?? [];
  return {
    remoteId: existing?.remoteId ?? input.id,
    dataSource: existing?.dataSource ?? 'console',
    teamUserId: existing?.teamUserId ?? null,
    kycCheckLevel: input.kycCheckLevel.trim() === '' ? null : Number(input.kycCheckLevel),
    contact: {
      guid: existing?.contact.guid ?? crypto.randomUUID(),
      externalId: existing?.contact.externalId ?? null,
      userType: existing?.contact.userType ?? 1,
      status: input.status || existing?.contact.status || 'active',
      contact: {
        ...(existing?.contact.contact ?? { middleNames: null, title: null, nickname: null, dateOfBirth: null }),
        forename,
        surname,
        email,
      },
      username: existing?.contact.username ?? (email ?? input.id).toLowerCase(),
      profilePhotoFileKey: existing?.contact.profilePhotoFileKey ?? null,
      name: fullName,
      classifications: classes.map(
        (name) =>
          kept.find((c) => c.name.toLowerCase() === name.toLowerCase() || c.investorClass.toLowerCase() === name.toLowerCase()) ?? {
            investorClassId: classId(name),
            organisation: null,
            investorClass: classId(name),
            name,
          },
      ),
      fullName,
      tfaEnabled: existing?.contact.tfaEnabled ?? false,
      compliance: existing?.contact.compliance ?? 'pending',
    },
  };
}

export const fromRecord = (id: string, r: InvestorRecord): InvestorInput => ({
  id,
  forename: r.contact.contact.forename,
  surname: r.contact.contact.surname,
  email: r.contact.contact.email ?? '',
  kycCheckLevel: r.kycCheckLevel === null ? '' : String(r.kycCheckLevel),
  classifications: r.contact.classifications.map((c) => c.name).join(', '),
  status: r.contact.status,
});
