// The language an investor's e-mails are written in (docs/reference/e-mail-templates.md, "Languages"):
// kept on the investor's directory row (`investors.language`), set by staff or by the investor
// themself in the portal, each change an audit entry of the directory chain. Unset reads as English.
// It lives beside the directory entry rather than in it: PUT /investors/{id} is the interface's
// shape, which carries no language, and a platform that upserts its directory must not reset it.
import { DIRECTORY_CHAIN } from '../domain/audit.ts';
import { conflict, notFound } from '../domain/errors.ts';
import { type MailLanguage, mailLanguageOf } from '../domain/mail.ts';
import { actorOf, canActFor, type Principal } from '../domain/principal.ts';
import { appendToChain } from '../store/audit.ts';
import { investorLanguage, setInvestorLanguageRow } from '../store/investors.ts';
import type { Deps } from './deps.ts';
import { type Answer, type WriteRequest, write } from './pipeline.ts';
import { forReading } from './reads.ts';

export interface InvestorLanguage {
  investorUserId: string;
  language: MailLanguage;
  /** Whether it was chosen (false: never set, English by default). */
  chosen: boolean;
}

const languageOf = (investorUserId: string, stored: string | null): InvestorLanguage => ({
  investorUserId,
  language: mailLanguageOf(stored),
  chosen: stored !== null,
});

/** GET: staff, or the investor themself; anyone else's id answers 404, as an unknown one does. */
export async function getInvestorLanguage(deps: Deps, principal: Principal, investorUserId: string): Promise<InvestorLanguage> {
  if (!canActFor(principal, investorUserId)) throw notFound('investor', investorUserId);
  const found = await investorLanguage(forReading(deps).db, investorUserId);
  if (!found) throw notFound('investor', investorUserId);
  return languageOf(investorUserId, found.language);
}

/** PUT: staff (operator and above), or the investor themself. Setting the language it has changes nothing and writes no entry. */
export async function setInvestorLanguage(deps: Deps, request: WriteRequest, investorUserId: string, language: MailLanguage): Promise<Answer> {
  const { principal } = request;
  if (!canActFor(principal, investorUserId)) throw notFound('investor', investorUserId);
  return write(deps, request, 200, async (tx) => {
    const found = await investorLanguage(tx.db, investorUserId, { lock: true });
    if (!found) throw notFound('investor', investorUserId);
    if (found.erased) throw conflict('The investor was erased: nothing more is recorded of them');
    if (found.language === language) return languageOf(investorUserId, language);
    await setInvestorLanguageRow(tx.db, investorUserId, language);
    await appendToChain(tx.db, {
      chain: DIRECTORY_CHAIN,
      type: 'investor.language-changed',
      principal: actorOf(principal),
      tokenId: principal.tokenKey,
      at: tx.clock().toISOString(),
      change: { investorUserId, from: found.language, to: language },
    });
    return languageOf(investorUserId, language);
  });
}
