// The statement an investor confirms in the portal for each category: the declarations of the
// Financial Promotion Order's Schedule 5 (articles 48, 50 and 50A) and, for professional clients,
// of COBS 3.5, shortened to what the investor declares. The text confirmed is stored with the
// confirmation and with the statement it becomes, so a later change of these words changes no
// record.
import type { InvestorCategory } from './investor-category.ts';

export const categoryStatementTexts: Readonly<Record<InvestorCategory, string>> = {
  'certified-high-net-worth':
    'I make this statement so that I can receive promotional communications which are exempt from the restriction on promotion of non-mainstream ' +
    'investments. I am a certified high net worth individual because: I had, throughout the financial year immediately preceding the date below, an ' +
    'annual income of £100,000 or more; or I held, throughout that year, net assets to the value of £250,000 or more, not including my primary ' +
    'residence, pension rights or insurance benefits. I accept that the investments may expose me to a significant risk of losing all of the money ' +
    'or other property invested.',
  'certified-sophisticated':
    'I declare that I have a current certificate in writing or other legible form signed by an authorised person to the effect that I am ' +
    'sufficiently knowledgeable to understand the risks associated with this type of investment. I accept that I can lose my property and other ' +
    'assets from making investment decisions based on financial promotions exempt from the restriction.',
  'self-certified-sophisticated':
    'I declare that I am a self-certified sophisticated investor: I am a member of a network or syndicate of business angels and have been so for ' +
    'at least the last six months; or I have made more than one investment in an unlisted company in the last two years; or I have worked in the ' +
    'last two years in a professional capacity in the private equity sector or in the provision of finance for small and medium enterprises; or I ' +
    'have been in the last two years a director of a company with an annual turnover of at least £1 million. I accept that I can lose my property ' +
    'and other assets from making investment decisions based on financial promotions exempt from the restriction.',
  'elective-professional':
    'I ask to be treated as an elective professional client. I have been given a clear written warning of the protections and investor ' +
    'compensation rights I may lose, and I am aware of the consequences of losing them. The firm has assessed my expertise, experience and ' +
    'knowledge and recorded its assessment.',
  professional:
    'I confirm that I am, or act for, a per se professional client (an authorised or regulated firm, a large undertaking, a national or regional ' +
    'government or public body, or an institutional investor) and that the firm has recorded the evidence of it.',
};
