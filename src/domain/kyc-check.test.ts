import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judgeResult, levelAfter, type RecordedResult, type ResultVerdict } from './kyc-check.ts';

const clear2: RecordedResult = { webhookId: 'msg_1', outcome: 'clear', level: 2 };

const verdicts: { name: string; recorded?: RecordedResult; incoming: RecordedResult; idUsedElsewhere?: boolean; verdict: ResultVerdict }[] = [
  { name: 'the first result', incoming: clear2, verdict: 'record' },
  { name: 'the same delivery again', recorded: clear2, incoming: clear2, verdict: 'duplicate' },
  { name: 'the same result under a new webhook-id', recorded: clear2, incoming: { ...clear2, webhookId: 'msg_2' }, verdict: 'duplicate' },
  { name: 'the same webhook-id with another outcome', recorded: clear2, incoming: { ...clear2, outcome: 'failed', level: null }, verdict: 'replayed-id' },
  { name: 'the same webhook-id with another level', recorded: clear2, incoming: { ...clear2, level: 3 }, verdict: 'replayed-id' },
  { name: 'a webhook-id used for another check', incoming: { ...clear2, webhookId: 'msg_9' }, idUsedElsewhere: true, verdict: 'replayed-id' },
  { name: 'another outcome for a decided check', recorded: clear2, incoming: { webhookId: 'msg_2', outcome: 'refer', level: null }, verdict: 'contradicts' },
  { name: 'another level for a decided check', recorded: clear2, incoming: { webhookId: 'msg_2', outcome: 'clear', level: 3 }, verdict: 'contradicts' },
  {
    name: 'a clear after a refer',
    recorded: { webhookId: 'msg_1', outcome: 'refer', level: null },
    incoming: { ...clear2, webhookId: 'msg_2' },
    verdict: 'contradicts',
  },
];

for (const c of verdicts) {
  test(`judgeResult: ${c.name} → ${c.verdict}`, () => assert.equal(judgeResult(c.recorded, c.incoming, c.idUsedElsewhere ?? false), c.verdict));
}

const levels: [number | null, Parameters<typeof levelAfter>[1], number | null][] = [
  [null, { outcome: 'clear', level: 2 }, 2],
  [0, { outcome: 'clear', level: 2 }, 2],
  [1, { outcome: 'clear', level: 3 }, 3],
  [3, { outcome: 'clear', level: 2 }, 3],
  [2, { outcome: 'clear', level: 2 }, 2],
  [1, { outcome: 'refer', level: null }, 1],
  [null, { outcome: 'failed', level: null }, null],
  [2, { outcome: 'expired', level: null }, 2],
];

for (const [current, result, after] of levels) {
  test(`levelAfter: ${current} and ${result.outcome} ${result.level ?? ''} → ${after}`, () => assert.equal(levelAfter(current, result), after));
}
