// Proposals for queued bank lines, table by table: name similarity, edit distance, reference
// distance, the reasons of one candidate, and the ranking (with a property: an exact amount and
// name together always rank first).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type Candidate, editDistance, type LineFacts, proposeInvestors, referenceDistance, scoreCandidate, similarity } from './payment-proposal.ts';

describe('similarity (pg_trgm semantics)', () => {
  const cases: [string, string, number][] = [
    ['Ada Lovelace', 'Ada Lovelace', 1],
    ['ADA LOVELACE', 'ada lovelace', 1],
    ['Lovelace, Ada', 'Ada Lovelace', 1],
    ['Zoë Müller', 'Zoe Muller', 1],
    ['', 'Ada', 0],
  ];
  for (const [a, b, s] of cases) it(`${a} ~ ${b}`, () => assert.equal(similarity(a, b), s));
  it('a typo stays close, another name does not', () => {
    assert.ok(similarity('Ada Lovelac', 'Ada Lovelace') > 0.6);
    assert.ok(similarity('A. Lovelace', 'Ada Lovelace') > 0.45);
    assert.ok(similarity('Grace Hopper', 'Ada Lovelace') < 0.1);
  });
  it("agrees with pg_trgm on a known pair (similarity('word', 'two words') = 0.363636)", () => {
    assert.equal(similarity('word', 'two words').toFixed(6), '0.363636');
  });
});

describe('editDistance (optimal string alignment)', () => {
  const cases: [string, string, number][] = [
    ['RF18539007547034', 'RF18539007547034', 0],
    ['RF18539007547034', 'RF18539007574034', 1], // two neighbours swapped
    ['RF18539007547034', 'RF1853900754703', 1],
    ['RF18539007547034', 'RF18539X07547O34', 2],
    ['abc', 'xyz', 3],
  ];
  for (const [a, b, d] of cases) it(`${a} → ${b}: ${d}`, () => assert.equal(editDistance(a, b), d));
  it('stops early past max', () => assert.equal(editDistance('aaaaaaaa', 'bbbbbbbb', 2), 3));
});

describe('referenceDistance', () => {
  const ref = 'RF18539007547034';
  const cases: [string, (string | null)[], number][] = [
    ['quoted exactly in grouped text', ['Invoice RF18 5390 0754 7034 thanks'], 0],
    ['swapped digits in free text', ['pay RF18 5390 0745 7034'], 1],
    ['one digit dropped, lower case', [null, 'rf18-5390-0754-703'], 1],
    ['two characters off', ['RF18539007547099'], 2],
    ['another reference altogether', ['RF71123456789012'], 3],
    ['nothing quoted', [null, 'thank you'], 3],
  ];
  for (const [name, texts, d] of cases) it(name, () => assert.equal(referenceDistance(texts, ref), d));
});

const candidate = (over: Partial<Candidate> & { fullName: string }): Candidate => ({
  dealId: 'deal-1',
  investorUserId: `inv-${over.fullName.toLowerCase().replace(/\W+/g, '-')}`,
  companies: [],
  paymentReference: 'RF18539007547034',
  stillOwed: '10000.00',
  currency: 'EUR',
  ...over,
});
const line = (over: Partial<LineFacts> = {}): LineFacts => ({ amount: '10000.00', currency: 'EUR', payerName: null, referenceTexts: [], ...over });

describe('scoreCandidate', () => {
  const cases: [string, LineFacts, Candidate, string[]][] = [
    ['amount equals what they still owe', line(), candidate({ fullName: 'Ada Lovelace' }), ['amount-owed']],
    ['the same amount in another currency is no reason', line({ currency: 'USD' }), candidate({ fullName: 'Ada Lovelace' }), []],
    ['nothing owed is no amount reason', line({ amount: '0' }), candidate({ fullName: 'Ada Lovelace', stillOwed: '0' }), []],
    ['no commitment captured', line(), candidate({ fullName: 'Ada Lovelace', stillOwed: null }), []],
    ['payer name close to the investor', line({ amount: '1', payerName: 'LOVELACE ADA' }), candidate({ fullName: 'Ada Lovelace' }), ['name']],
    [
      'payer name close to the company',
      line({ amount: '1', payerName: 'Analytical Engines Ltd' }),
      candidate({ fullName: 'Ada Lovelace', companies: ['Analytical Engines Ltd.'] }),
      ['company'],
    ],
    ['a different name', line({ amount: '1', payerName: 'Grace Hopper' }), candidate({ fullName: 'Ada Lovelace' }), []],
    [
      'reference one character from theirs',
      line({ amount: '1', referenceTexts: ['RF18 5390 0754 7035'] }),
      candidate({ fullName: 'Ada Lovelace' }),
      ['reference'],
    ],
    [
      'all three',
      line({ payerName: 'Ada Lovelace', referenceTexts: ['RF18539007547043'] }),
      candidate({ fullName: 'Ada Lovelace' }),
      ['amount-owed', 'name', 'reference'],
    ],
  ];
  for (const [name, l, c, kinds] of cases) {
    it(name, () => {
      const p = scoreCandidate(l, c);
      assert.deepEqual(
        p.reasons.map((r) => r.kind),
        kinds,
      );
      assert.equal(p.score > 0, kinds.length > 0);
    });
  }
  it('says the reason in words', () => {
    const p = scoreCandidate(line({ payerName: 'Ada Lovelace', referenceTexts: ['RF18539007547043'] }), candidate({ fullName: 'Ada Lovelace' }));
    assert.deepEqual(
      p.reasons.map((r) => r.detail),
      [
        'the amount equals what Ada Lovelace still owes',
        'payer name the same as Ada Lovelace (1.00)',
        'reference one character from theirs (RF18539007547034)',
      ],
    );
  });
});

describe('proposeInvestors', () => {
  const people = [
    candidate({ fullName: 'Ada Lovelace', stillOwed: '25000.00', paymentReference: 'RF18539007547034' }),
    candidate({ fullName: 'Ada Byron', stillOwed: '10000.00', paymentReference: 'RF71123456789012' }),
    candidate({ fullName: 'Grace Hopper', stillOwed: '10000.00', paymentReference: 'RF45000000000001' }),
    candidate({ fullName: 'Charles Babbage', stillOwed: '5000.00', companies: ['Difference Engines'], paymentReference: 'RF02000000000002' }),
  ];
  const cases: [string, LineFacts, string[]][] = [
    ['the name decides between two who owe the amount', line({ payerName: 'GRACE HOPPER' }), ['Grace Hopper', 'Ada Byron']],
    ['the amount decides between two close names', line({ amount: '25000.00', payerName: 'Ada Byron-Lovelace' }), ['Ada Lovelace', 'Ada Byron']],
    ['the company', line({ amount: '5000.00', payerName: 'Difference Engines GmbH' }), ['Charles Babbage']],
    ['a mistyped reference', line({ amount: '3.00', referenceTexts: ['RF71 1234 5678 9021'] }), ['Ada Byron']],
    ['nothing in common: no proposal', line({ amount: '1.00', payerName: 'Nobody Known' }), []],
  ];
  for (const [name, l, names] of cases)
    it(name, () =>
      assert.deepEqual(
        proposeInvestors(l, people).map((p) => p.candidate.fullName),
        names,
      ),
    );
  it('keeps at most the limit, in a stable order', () => {
    assert.deepEqual(
      proposeInvestors(line(), people, 1).map((p) => p.candidate.fullName),
      ['Ada Byron'],
    );
  });

  it('an exact amount and an exact name always rank first (property)', () => {
    const name = fc
      .array(fc.constantFrom('ada', 'lovelace', 'grace', 'hopper', 'byron', 'ann', 'lee', 'li'), { minLength: 1, maxLength: 3 })
      .map((w) => w.join(' '));
    const amount = fc.constantFrom('10000.00', '10000', '9999.99', '5000.00', '25000.00');
    const other = fc.record({
      fullName: name,
      stillOwed: fc.option(amount),
      company: fc.option(name),
      ref: fc.constantFrom('RF18539007547034', 'RF71123456789012'),
    });
    fc.assert(
      fc.property(name, amount, fc.array(other, { maxLength: 30 }), fc.nat(), (payer, paid, others, at) => {
        const all: Candidate[] = others.map((o, i) =>
          candidate({
            fullName: o.fullName,
            investorUserId: `o-${i}`,
            stillOwed: o.stillOwed,
            companies: o.company ? [o.company] : [],
            paymentReference: o.ref,
          }),
        );
        const exact = (c: Candidate) =>
          c.stillOwed !== null && Number(c.stillOwed) === Number(paid) && [c.fullName, ...c.companies].some((n) => similarity(n, payer) === 1);
        fc.pre(!all.some(exact));
        const target = candidate({ fullName: payer, investorUserId: 'target', stillOwed: paid });
        all.splice(at % (all.length + 1), 0, target);
        const ranked = proposeInvestors(line({ amount: paid, payerName: payer }), all);
        assert.equal(ranked[0]?.candidate.investorUserId, 'target');
      }),
      { numRuns: 500 },
    );
  });
});
