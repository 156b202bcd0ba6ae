// The certificate that seals signed PDFs (docs/reference/signature-format.md, "A real
// certificate"): a PEM private key and a PEM certificate file holding the signing certificate first
// and any chain after it, or a PKCS#12 file (.p12, .pfx) and its passphrase. One of the two or
// neither; unset, the service makes a self-signed development seal at first start and keeps it in
// the database.
import { readFileSync } from 'node:fs';
import { ConfigError, type Env } from './config-env.ts';

export type SealConfig =
  | {
      /** PEM: the private key (PKCS#8, or the RSA or EC form), RSA or EC P-256/P-384. */
      keyPem: string;
      /** PEM: the signing certificate, then its chain. */
      certificatePem: string;
    }
  | {
      /** A PKCS#12 file's bytes: the key and the certificates; opened (and checked) at start. */
      pkcs12: Uint8Array;
      passphrase: string;
    };

type SealFile = 'SEAL_KEY_FILE' | 'SEAL_CERTIFICATE_FILE' | 'SEAL_PKCS12_FILE';

function read(name: SealFile, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ConfigError(name, `cannot be read: ${(err as Error).message}`);
  }
}

function readPem(name: 'SEAL_KEY_FILE' | 'SEAL_CERTIFICATE_FILE', file: string, label: RegExp): string {
  const text = read(name, file).toString('utf8');
  if (!label.test(text)) throw new ConfigError(name, `holds no PEM ${name === 'SEAL_KEY_FILE' ? 'private key' : 'certificate'}`);
  return text;
}

export function sealConfig(env: Env): SealConfig | undefined {
  const keyFile = env.SEAL_KEY_FILE || undefined;
  const certificateFile = env.SEAL_CERTIFICATE_FILE || undefined;
  const pkcs12File = env.SEAL_PKCS12_FILE || undefined;
  if (pkcs12File !== undefined) {
    if (keyFile !== undefined || certificateFile !== undefined) {
      throw new ConfigError('SEAL_PKCS12_FILE', 'is an alternative to SEAL_KEY_FILE and SEAL_CERTIFICATE_FILE: set one or the other');
    }
    return { pkcs12: new Uint8Array(read('SEAL_PKCS12_FILE', pkcs12File)), passphrase: env.SEAL_PKCS12_PASSPHRASE ?? '' };
  }
  if (keyFile === undefined && certificateFile === undefined) return undefined;
  if (keyFile === undefined || certificateFile === undefined) {
    throw new ConfigError(keyFile === undefined ? 'SEAL_KEY_FILE' : 'SEAL_CERTIFICATE_FILE', 'is needed with the other: the seal is a key and its certificate');
  }
  return {
    keyPem: readPem('SEAL_KEY_FILE', keyFile, /-----BEGIN (?:RSA |EC )?PRIVATE KEY-----/),
    certificatePem: readPem('SEAL_CERTIFICATE_FILE', certificateFile, /-----BEGIN CERTIFICATE-----/),
  };
}
