// The certificate that seals signed PDFs (docs/reference/signature-format.md, "A real
// certificate"): a PEM private key (PKCS#8) and a PEM certificate file holding the signing
// certificate first and any chain after it. Both or neither; unset, the service makes a self-signed
// development seal at first start and keeps it in the database.
import { readFileSync } from 'node:fs';
import { ConfigError, type Env } from './config-env.ts';

export interface SealConfig {
  /** PEM: the private key (PKCS#8, or the RSA or EC form), RSA or EC P-256/P-384. */
  keyPem: string;
  /** PEM: the signing certificate, then its chain. */
  certificatePem: string;
}

function readPem(name: 'SEAL_KEY_FILE' | 'SEAL_CERTIFICATE_FILE', file: string, label: RegExp): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(name, `cannot be read: ${(err as Error).message}`);
  }
  if (!label.test(text)) throw new ConfigError(name, `holds no PEM ${name === 'SEAL_KEY_FILE' ? 'private key' : 'certificate'}`);
  return text;
}

export function sealConfig(env: Env): SealConfig | undefined {
  const keyFile = env.SEAL_KEY_FILE || undefined;
  const certificateFile = env.SEAL_CERTIFICATE_FILE || undefined;
  if (keyFile === undefined && certificateFile === undefined) return undefined;
  if (keyFile === undefined || certificateFile === undefined) {
    throw new ConfigError(keyFile === undefined ? 'SEAL_KEY_FILE' : 'SEAL_CERTIFICATE_FILE', 'is needed with the other: the seal is a key and its certificate');
  }
  return {
    keyPem: readPem('SEAL_KEY_FILE', keyFile, /-----BEGIN (?:RSA |EC )?PRIVATE KEY-----/),
    certificatePem: readPem('SEAL_CERTIFICATE_FILE', certificateFile, /-----BEGIN CERTIFICATE-----/),
  };
}
