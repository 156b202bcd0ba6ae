// The investor directory entry: the investor object of listActiveInvestors (all-transactions).

export interface InvestorClassification {
  investorClassId: string;
  organisation: string | null;
  investorClass: string;
  name: string;
}

export interface PersonalContact {
  forename: string;
  middleNames: string | null;
  surname: string;
  title: string | null;
  nickname: string | null;
  dateOfBirth: string | null;
  email: string | null;
}

export interface InvestorContact {
  guid: string;
  externalId: string | null;
  userType: number;
  status: string;
  contact: PersonalContact;
  username: string;
  profilePhotoFileKey: string | null;
  name: string;
  classifications: InvestorClassification[];
  fullName: string;
  tfaEnabled: boolean;
  compliance: string;
}

export interface Investor {
  id: string;
  remoteId: string;
  dataSource: string;
  teamUserId: string | null;
  kycCheckLevel: number | null;
  contact: InvestorContact;
}

/** Active investors (listActiveInvestors) are those whose contact status is `active`. */
export const ACTIVE_STATUS = 'active';

/** What the move rules know of an investor from the directory: their KYC level and their classes. */
export const ruleFactsOf = (investor: Pick<Investor, 'kycCheckLevel' | 'contact'>) => ({
  kycCheckLevel: investor.kycCheckLevel,
  classes: investor.contact.classifications.map((c) => c.investorClass),
});
