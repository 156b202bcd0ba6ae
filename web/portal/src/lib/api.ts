// The portal's calls: its sign-in routes and the API behind the session cookie.
import { call, callFile, portalApiBase } from './http.ts';
import type * as T from './types.ts';

export * from './http.ts';
export type * from './types.ts';

const enc = encodeURIComponent;

export const portalApi = {
  registrationOptions: (invitation: string) => call<T.RegistrationOptions>('POST', '/passkeys/registration-options', { invitation }),
  register: (invitation: string, response: unknown) => call<T.Session>('POST', '/passkeys', { invitation, response }),
  signInOptions: () => call<T.AuthenticationOptions>('POST', '/sessions/options', {}),
  signIn: (response: unknown) => call<T.Session>('POST', '/sessions', { response }),
  session: () => call<T.Session>('GET', '/session', undefined, { quiet401: true }),
  signOut: (everywhere: boolean) => call<void>('POST', '/sign-out', { everywhere }),
  language: (investorUserId: string) => call<T.InvestorLanguage>('GET', `/investors/${enc(investorUserId)}/language`),
  setLanguage: (investorUserId: string, language: T.InvestorLanguage['language']) =>
    call<T.InvestorLanguage>('PUT', `/investors/${enc(investorUserId)}/language`, { language }),
  deals: (investorUserId: string) => call<T.InvestorDeals>('GET', `/investors/${enc(investorUserId)}/deals`),
  deal: (investorUserId: string, dealId: string) => call<T.InvestorDeal>('GET', `/investors/${enc(investorUserId)}/deals/${enc(dealId)}`),
  jump: (dealId: string, body: T.JumpBody) => call<unknown>('POST', `/deals/deal/${enc(dealId)}/jump-to-step`, body),
  requestEdit: (body: T.EditRequestBody) => call<unknown>('POST', '/deals/request-to-edit', body),
  documents: (dealId: string) => call<T.DealDocument[]>('GET', `/deals/deal/${enc(dealId)}/documents`),
  kyc: (dealId: string, investorUserId: string) => call<T.KycStatus>('GET', `/deals/deal/${enc(dealId)}/kyc/${enc(investorUserId)}`),
  uploadKyc: (dealId: string, investorUserId: string, kind: string, file: File) =>
    callFile<T.KycDocument>(
      `/deals/deal/${enc(dealId)}/kyc/${enc(investorUserId)}/documents?kind=${enc(kind)}&fileName=${enc(file.name.replace(/[/\\"\r\n]/g, '_') || kind)}`,
      file,
    ),
  confirmCategory: (dealId: string, investorUserId: string, category: T.KycStatus['categories'][number]['category']) =>
    call<unknown>('POST', `/deals/deal/${enc(dealId)}/kyc/${enc(investorUserId)}/category-confirmations`, { category, confirmed: true }),
  agreement: (dealId: string, investorUserId: string) => call<T.Agreement>('GET', agreementPath(dealId, investorUserId)),
  signingOptions: (dealId: string, investorUserId: string, contentHash: string) =>
    call<T.SigningOptions>('POST', `${agreementPath(dealId, investorUserId)}/signing-options`, { contentHash }),
  sign: (dealId: string, investorUserId: string, response: unknown) =>
    call<T.Agreement>('POST', `${agreementPath(dealId, investorUserId)}/signatures`, { response }),
};

/** The investor's subscription agreement in a deal. */
const agreementPath = (dealId: string, investorUserId: string) => `/deals/deal/${enc(dealId)}/agreements/${enc(investorUserId)}`;
/** Where the agreement's PDF is downloaded, in its newest form (filled, signed or countersigned). */
export const agreementHref = (dealId: string, investorUserId: string) => `${portalApiBase}${agreementPath(dealId, investorUserId)}/content`;

/** Where a document is downloaded: a plain link, sent with the session cookie (a read needs no CSRF token). */
export const documentHref = (dealId: string, documentId: string) => `${portalApiBase}/deals/deal/${enc(dealId)}/documents/${enc(documentId)}/content`;
