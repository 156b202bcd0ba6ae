import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allAccepted, kycExpired, kycExpiry, kycRequests, kycStanding, type KycUpload, mediaTypeOf, needsCertificate } from './kyc.ts';

describe('KYC evidence', () => {
  test('a level expires the configured months after its acceptance, on the same day, clamped to the month', () => {
    const table: [string, number, string][] = [
      ['2026-03-15', 12, '2027-03-15'],
      ['2024-02-29', 12, '2025-02-28'],
      ['2026-08-31', 6, '2027-02-28'],
      ['2026-12-31', 1, '2027-01-31'],
      ['2026-01-31', 1, '2026-02-28'],
      ['2026-05-10', 24, '2028-05-10'],
    ];
    for (const [accepted, months, expires] of table) assert.equal(kycExpiry(accepted, months), expires, `${accepted} + ${months}`);
    assert.throws(() => kycExpiry('2026-13-01', 12), RangeError);
  });

  test('standing and expiry: expiring 30 days before, expired on the day', () => {
    const table: [string, string, string, boolean][] = [
      ['2027-03-15', '2027-02-12', 'valid', false],
      ['2027-03-15', '2027-02-13', 'expiring', false],
      ['2027-03-15', '2027-03-14', 'expiring', false],
      ['2027-03-15', '2027-03-15', 'expired', true],
    ];
    for (const [expiresOn, today, standing, expired] of table) {
      assert.equal(kycStanding(expiresOn, today), standing, `${expiresOn} on ${today}`);
      assert.equal(kycExpired({ level: 2, expiresOn }, today), expired);
    }
    assert.equal(kycExpired(null, '2027-01-01'), false, 'no level: nothing expired');
  });

  test('each request stands at the newest file of its kind uploaded since the last expired level', () => {
    const up = (kind: string, uploadedAt: string, decision: KycUpload['decision'] = null, reason: string | null = null): KycUpload => ({
      kind,
      uploadedAt,
      decision,
      reason,
    });
    const required = ['identity', 'proof-of-address'];
    const table: [string, KycUpload[], string | null, string[], boolean][] = [
      ['nothing uploaded', [], null, ['requested', 'requested'], false],
      ['one submitted', [up('identity', '2026-01-01T00:00:00Z')], null, ['submitted', 'requested'], false],
      ['rejected, asked again', [up('identity', '2026-01-01T00:00:00Z', 'rejected', 'blurred')], null, ['rejected', 'requested'], false],
      [
        'a new file after a rejection',
        [up('identity', '2026-01-01T00:00:00Z', 'rejected', 'blurred'), up('identity', '2026-01-02T00:00:00Z')],
        null,
        ['submitted', 'requested'],
        false,
      ],
      [
        'both accepted',
        [up('identity', '2026-01-01T00:00:00Z', 'accepted'), up('proof-of-address', '2026-01-01T00:00:00Z', 'accepted')],
        null,
        ['accepted', 'accepted'],
        true,
      ],
      [
        'accepted before an expired level: asked again',
        [up('identity', '2026-01-01T00:00:00Z', 'accepted'), up('proof-of-address', '2026-01-01T00:00:00Z', 'accepted')],
        '2026-01-03T00:00:00Z',
        ['requested', 'requested'],
        false,
      ],
      ['other kinds do not count', [up('category-evidence', '2026-01-01T00:00:00Z', 'accepted')], null, ['requested', 'requested'], false],
    ];
    for (const [name, uploads, since, states, done] of table) {
      const requests = kycRequests(required, uploads, since);
      assert.deepEqual(
        requests.map((r) => r.state),
        states,
        name,
      );
      assert.equal(allAccepted(requests), done, name);
    }
    assert.equal(kycRequests(['identity'], [up('identity', '2026-01-01T00:00:00Z', 'rejected', 'blurred')], null)[0]!.reason, 'blurred');
    assert.equal(allAccepted([]), false, 'nothing required is nothing accepted');
  });

  test('the content decides the media type: PDF, JPEG, PNG, nothing else', () => {
    const table: [number[], string | undefined][] = [
      [[0x25, 0x50, 0x44, 0x46, 0x2d, 0x31], 'application/pdf'],
      [[0xff, 0xd8, 0xff, 0xe0], 'image/jpeg'],
      [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/png'],
      [[0x47, 0x49, 0x46, 0x38], undefined],
      [[0x25, 0x50], undefined],
      [[], undefined],
    ];
    for (const [bytes, type] of table) assert.equal(mediaTypeOf(Uint8Array.from(bytes)), type, JSON.stringify(bytes));
  });

  test('categories that need a certificate wait for staff; self-certified sophisticated does not', () => {
    const table: [string, boolean][] = [
      ['certified-high-net-worth', true],
      ['certified-sophisticated', true],
      ['elective-professional', true],
      ['professional', true],
      ['self-certified-sophisticated', false],
    ];
    for (const [category, needs] of table) assert.equal(needsCertificate(category), needs, category);
  });
});
