// The seal's certificate configured by the operator (SEAL_KEY_FILE, SEAL_CERTIFICATE_FILE): a
// signature names that certificate and no development seal is made; half a configuration, or a
// file that is not what it should be, stops the start with the variable's name.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { sealKeyOf } from '../../src/operations/seal-key.ts';
import { startApp } from '../support/app.ts';
import { createInvestor, jump } from '../support/deals.ts';
import { uniqueId } from '../support/fixtures.ts';
import { invitationToken, portal } from '../support/portal.ts';
import { agreementPath, agreementPdf, pdfsig, sign } from '../support/signing.ts';
import { agreementWorkflow } from '../support/workflows.ts';

describe('configured seal', () => {
  // An EC P-256 key and its certificate, as a trust service provider's would be configured.
  const dir = mkdtempSync(path.join(tmpdir(), 'dealflow-seal-'));
  const key = path.join(dir, 'seal-key.pem');
  const certificate = path.join(dir, 'seal-chain.pem');
  const made = spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-out',
    certificate,
    '-subj',
    '/O=Example Fund Managers Ltd/CN=Example Fund Managers seal',
    '-days',
    '30',
  ]);
  assert.equal(made.status, 0, String(made.stderr));

  const t = startApp({ env: { SEAL_KEY_FILE: key, SEAL_CERTIFICATE_FILE: certificate, PORTAL_RATE_LIMIT_PER_MINUTE: '100000' } });

  describe("the operator's seal", () => {
    test('a signature is sealed with the configured certificate (ECDSA), and no development seal is made', async () => {
      const dealId = uniqueId('deal');
      assert.equal((await t.admin.put(`/deals/deal/${dealId}`, { name: 'Fund VI', currency: 'EUR' })).status, 201);
      assert.equal((await t.admin.put(`/deals/deal/${dealId}/workflow`, agreementWorkflow(dealId))).status, 201);
      const investor = await createInvestor(t.admin);
      const door = portal(t.app, t.config.basePath, 'http://localhost:3000');
      const [invitation] = await door.invite(t.admin, [investor.id]);
      const { session, authenticator } = await door.register(invitationToken(invitation!.url));
      await jump(t.admin, dealId, investor.id, `${dealId}.commitment`, { committed_amount: '1000.00', currency: 'EUR', address_line1: '3 Mill Lane' });
      const url = agreementPath('portal', dealId, investor.id);
      const signed = await sign(session, authenticator, url, (await session.api.get(url)).body.contentHash);
      assert.equal(signed.status, 201, signed.text);
      const verdict = pdfsig((await agreementPdf(session.api, url)).bytes);
      assert.match(verdict.output, /Signer Certificate Common Name: Example Fund Managers seal/);
      assert.deepEqual(
        verdict.signatures.map((s) => s.valid),
        [true],
        verdict.output,
      );
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from seal_keys`.execute(t.database.db);
      assert.equal(rows[0]!.n, 0);
    });

    test('a PKCS#12 file opens with its passphrase (the signing certificate first), and not without it', async () => {
      const p12 = path.join(dir, 'seal.p12');
      const exported = spawnSync('openssl', ['pkcs12', '-export', '-inkey', key, '-in', certificate, '-out', p12, '-passout', 'pass:correct horse']);
      assert.equal(exported.status, 0, String(exported.stderr));
      const config = loadConfig({ SEAL_PKCS12_FILE: p12, SEAL_PKCS12_PASSPHRASE: 'correct horse' }).seal!;
      const sealed = await sealKeyOf(t.database.db, config, new Date());
      assert.equal(sealed.certificates.length, 1);
      assert.equal(sealed.privateKey.algorithm.name, 'ECDSA');
      const wrong = loadConfig({ SEAL_PKCS12_FILE: p12, SEAL_PKCS12_PASSPHRASE: 'wrong' }).seal!;
      await assert.rejects(sealKeyOf(t.database.db, wrong, new Date()), /SEAL_PKCS12_FILE cannot be opened with SEAL_PKCS12_PASSPHRASE/);
    });

    test('half a configuration, an unreadable file or a file of the wrong kind is a ConfigError naming the variable', () => {
      const text = path.join(dir, 'not-pem.txt');
      writeFileSync(text, 'hello');
      const cases: [Record<string, string>, string][] = [
        [{ SEAL_KEY_FILE: key }, 'SEAL_CERTIFICATE_FILE'],
        [{ SEAL_CERTIFICATE_FILE: certificate }, 'SEAL_KEY_FILE'],
        [{ SEAL_KEY_FILE: path.join(dir, 'missing.pem'), SEAL_CERTIFICATE_FILE: certificate }, 'SEAL_KEY_FILE'],
        [{ SEAL_KEY_FILE: key, SEAL_CERTIFICATE_FILE: text }, 'SEAL_CERTIFICATE_FILE'],
        [{ SEAL_KEY_FILE: certificate, SEAL_CERTIFICATE_FILE: certificate }, 'SEAL_KEY_FILE'],
      ];
      for (const [env, variable] of cases) {
        assert.throws(
          () => loadConfig(env),
          (err: unknown) => err instanceof ConfigError && err.variable === variable,
          JSON.stringify(env),
        );
      }
      const seal = loadConfig({ SEAL_KEY_FILE: key, SEAL_CERTIFICATE_FILE: certificate }).seal;
      assert.ok(seal && 'certificatePem' in seal && seal.certificatePem.includes('BEGIN CERTIFICATE'));
      assert.throws(
        () => loadConfig({ SEAL_PKCS12_FILE: key, SEAL_KEY_FILE: key }),
        (err: unknown) => err instanceof ConfigError && err.variable === 'SEAL_PKCS12_FILE',
      );
    });
  });
});
