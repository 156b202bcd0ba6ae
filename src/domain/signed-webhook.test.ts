import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type SignatureRefusal, signatureOf, verifySignedMessage } from './signed-webhook.ts';

// The example of the Standard Webhooks specification and of Svix's documentation: an independent
// implementation's answer, so ours is not only checked against itself.
const SPEC = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

test('the specification’s example signs to the published signature', () => {
  assert.equal(signatureOf(SPEC.secret, SPEC.id, SPEC.timestamp, SPEC.body), SPEC.signature);
});

const now = SPEC.timestamp;
const good = { id: SPEC.id, timestamp: String(SPEC.timestamp), signature: SPEC.signature, body: SPEC.body };
const other = 'whsec_' + Buffer.alloc(32, 7).toString('base64');

const cases: { name: string; message: typeof good | Record<string, string | undefined>; now?: number; secret?: string; refusal?: SignatureRefusal }[] = [
  { name: 'signed, now', message: good },
  { name: 'signed, 300 s ago (the edge of the window)', message: good, now: now + 300 },
  { name: 'signed, 300 s ahead (the edge of the window)', message: good, now: now - 300 },
  { name: 'several signatures, one matching (a secret being rotated)', message: { ...good, signature: `v1,AAAA ${SPEC.signature}` } },
  { name: 'signed 301 s ago: a replay after the window', message: good, now: now + 301, refusal: 'timestamp-too-old' },
  { name: 'signed 301 s ahead', message: good, now: now - 301, refusal: 'timestamp-in-future' },
  { name: 'no webhook-id', message: { ...good, id: undefined }, refusal: 'missing-headers' },
  { name: 'no webhook-timestamp', message: { ...good, timestamp: undefined }, refusal: 'missing-headers' },
  { name: 'no webhook-signature', message: { ...good, signature: undefined }, refusal: 'missing-headers' },
  { name: 'an empty webhook-signature', message: { ...good, signature: '' }, refusal: 'missing-headers' },
  { name: 'a timestamp in milliseconds', message: { ...good, timestamp: `${SPEC.timestamp}000` }, refusal: 'malformed-timestamp' },
  { name: 'a timestamp as a date', message: { ...good, timestamp: '2021-02-25T15:02:10Z' }, refusal: 'malformed-timestamp' },
  { name: 'a negative timestamp', message: { ...good, timestamp: '-1' }, refusal: 'malformed-timestamp' },
  { name: 'the body changed by one byte', message: { ...good, body: '{"test": 2432232315}' }, refusal: 'bad-signature' },
  { name: 'the body re-encoded (spaces dropped)', message: { ...good, body: '{"test":2432232314}' }, refusal: 'bad-signature' },
  { name: 'another webhook-id', message: { ...good, id: 'msg_other' }, refusal: 'bad-signature' },
  {
    name: 'the timestamp moved by one second, the signature kept',
    message: { ...good, timestamp: String(SPEC.timestamp + 1) },
    now: now + 1,
    refusal: 'bad-signature',
  },
  { name: 'another secret', message: good, secret: other, refusal: 'bad-signature' },
  { name: 'a signature of another version only', message: { ...good, signature: `v1a,${SPEC.signature.slice(3)}` }, refusal: 'bad-signature' },
  { name: 'a truncated signature', message: { ...good, signature: SPEC.signature.slice(0, 20) }, refusal: 'bad-signature' },
  { name: 'a signature that is not base64', message: { ...good, signature: 'v1,!!!!' }, refusal: 'bad-signature' },
];

for (const c of cases) {
  test(`${c.name}: ${c.refusal ?? 'accepted'}`, () => {
    const message = { id: c.message.id, timestamp: c.message.timestamp, signature: c.message.signature, body: c.message.body ?? '' };
    const verdict = verifySignedMessage(c.secret ?? SPEC.secret, message, c.now ?? now);
    if (c.refusal === undefined) {
      assert.deepEqual(verdict, { ok: true, id: message.id, timestampSeconds: Number(message.timestamp) });
    } else {
      assert.equal(verdict.ok, false);
      assert.equal(!verdict.ok && verdict.refusal, c.refusal);
    }
  });
}

test('a window of 0 s accepts only the same second', () => {
  assert.equal(verifySignedMessage(SPEC.secret, good, now, 0).ok, true);
  assert.equal(verifySignedMessage(SPEC.secret, good, now + 1, 0).ok, false);
});
