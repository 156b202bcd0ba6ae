// The seal's key and certificate (docs/reference/signature-format.md): the operator's, from
// SEAL_KEY_FILE and SEAL_CERTIFICATE_FILE, or SEAL_PKCS12_FILE (config-seal.ts); without them a self-signed development
// seal, made the first time one is needed and kept in the database (seal_keys), so every signature
// of an installation names the same certificate and a restart does not change it.
import 'reflect-metadata';
import { createPrivateKey, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { SealConfig } from '../config-seal.ts';
import { findSealKey, insertSealKey } from '../store/agreements.ts';
import type { Db } from '../store/schema.ts';
import type { SealKey } from './pades-signer.ts';
import { openPkcs12 } from './seal-pkcs12.ts';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const DEVELOPMENT = 'development';
const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;
const YEAR_MS = 365 * 24 * 3600 * 1000;

/** The DER of every certificate in a PEM text, in order. */
const certificatesOf = (pem: string): Uint8Array[] =>
  [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map(
    (m) => new Uint8Array(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64')),
  );

/** A PKCS#8 key (DER) as a WebCrypto signing key: RSA PKCS#1 v1.5 or ECDSA over P-256, P-384, with SHA-256. */
async function signingKey(pkcs8: Uint8Array): Promise<webcrypto.CryptoKey> {
  const key = createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' });
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const algorithm =
    key.asymmetricKeyType === 'rsa'
      ? RSA
      : key.asymmetricKeyType === 'ec' && (curve === 'prime256v1' || curve === 'secp384r1')
        ? { name: 'ECDSA', namedCurve: curve === 'prime256v1' ? 'P-256' : 'P-384' }
        : undefined;
  if (!algorithm) throw new Error(`the seal's key is ${key.asymmetricKeyType} ${curve ?? ''}: use RSA or EC P-256/P-384`);
  return webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, false, ['sign']);
}

async function makeDevelopmentSeal(now: Date): Promise<{ privateKey: Uint8Array; certificate: Uint8Array }> {
  const algorithm = { ...RSA, publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 3072 };
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
      .toString('hex')
      .replace(/^[89a-f]/, '1'),
    name: 'CN=dealflow development seal, O=dealflow (not for production)',
    notBefore: new Date(now.getTime() - 24 * 3600 * 1000),
    notAfter: new Date(now.getTime() + 10 * YEAR_MS),
    signingAlgorithm: algorithm,
    keys,
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation, true)],
  });
  return { privateKey: new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), certificate: new Uint8Array(certificate.rawData) };
}

/** The seal to sign with: the configured one, else the kept development seal (made now when there is none). */
export async function sealKeyOf(db: Db, config: SealConfig | undefined, now: Date): Promise<SealKey> {
  if (config && 'pkcs12' in config) {
    const opened = await openPkcs12(config.pkcs12, config.passphrase);
    return { privateKey: await signingKey(opened.pkcs8), certificates: opened.certificates };
  }
  if (config) {
    const pkcs8 = createPrivateKey(config.keyPem).export({ format: 'der', type: 'pkcs8' });
    return { privateKey: await signingKey(new Uint8Array(pkcs8)), certificates: certificatesOf(config.certificatePem) };
  }
  let kept = await findSealKey(db, DEVELOPMENT);
  if (!kept) {
    await insertSealKey(db, DEVELOPMENT, await makeDevelopmentSeal(now), now);
    kept = (await findSealKey(db, DEVELOPMENT))!;
  }
  return { privateKey: await signingKey(kept.privateKey), certificates: [kept.certificate] };
}
