import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digestDayDue, escapeHtml, fillTemplate, mailLanguageOf, messageIdOf, parseAddress, unknownVariables } from './mail.ts';

test('fillTemplate: placeholders filled, HTML escaped in HTML only, unknown names refused', () => {
  const vars = { recipientName: 'Ada <b>&</b> "Lovelace"', dealName: "O'Brien Fund" };
  const cases: [string, boolean, string][] = [
    ['Hello {{recipientName}}', false, 'Hello Ada <b>&</b> "Lovelace"'],
    ['Hello {{ recipientName }}', true, 'Hello Ada &lt;b&gt;&amp;&lt;/b&gt; &quot;Lovelace&quot;'],
    ['{{dealName}}', true, 'O&#39;Brien Fund'],
    ['{{{dealName}}}', true, '{O&#39;Brien Fund}'],
    ['no placeholders', true, 'no placeholders'],
  ];
  for (const [template, html, expected] of cases) assert.equal(fillTemplate(template, vars, html), expected, template);
  assert.throws(() => fillTemplate('{{nope}}', vars, false), /unknown variable \{\{nope\}\}/);
});

test('unknownVariables names what a kind does not have', () => {
  assert.deepEqual(unknownVariables('invitation', '{{invitationUrl}} {{iban}} {{ dealName }}'), ['iban']);
  assert.deepEqual(unknownVariables('payment-instructions', '{{iban}} {{reference}}'), []);
});

test('languages: ours, else English', () => {
  const cases: [string | null | undefined, string][] = [
    ['de', 'de'],
    ['fr', 'fr'],
    ['en', 'en'],
    ['it', 'en'],
    [null, 'en'],
    [undefined, 'en'],
  ];
  for (const [preferred, expected] of cases) assert.equal(mailLanguageOf(preferred), expected, String(preferred));
});

test('digestDayDue: from the hour on, that UTC day', () => {
  const cases: [string, number, string | undefined][] = [
    ['2026-03-01T06:59:59Z', 7, undefined],
    ['2026-03-01T07:00:00Z', 7, '2026-03-01'],
    ['2026-03-01T23:59:59Z', 7, '2026-03-01'],
    ['2026-03-02T00:00:00Z', 0, '2026-03-02'],
  ];
  for (const [now, hour, expected] of cases) assert.equal(digestDayDue(new Date(now), hour), expected, now);
});

test('addresses and Message-IDs', () => {
  assert.deepEqual(parseAddress('Deals <deals@example.com>'), { name: 'Deals', address: 'deals@example.com' });
  assert.deepEqual(parseAddress('"Deals Ltd" <deals@example.com>'), { name: 'Deals Ltd', address: 'deals@example.com' });
  assert.deepEqual(parseAddress('deals@example.com'), { name: undefined, address: 'deals@example.com' });
  assert.equal(parseAddress('not an address'), undefined);
  assert.equal(messageIdOf('abc', 'example.com'), '<abc@example.com>');
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
});
