// A PKCS#12 file (.p12, .pfx) opened with pkijs: its private key (PKCS#8) and its certificates, the
// signing certificate (the one no other certificate of the file was issued by) first.
import { webcrypto } from 'node:crypto';
import * as pkijs from 'pkijs';

const KEY_BAG = '1.2.840.113549.1.12.10.1.1';
const SHROUDED_KEY_BAG = '1.2.840.113549.1.12.10.1.2';
const CERT_BAG = '1.2.840.113549.1.12.10.1.3';

const arrayBuffer = (bytes: Uint8Array): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

export async function openPkcs12(file: Uint8Array, passphrase: string): Promise<{ pkcs8: Uint8Array; certificates: Uint8Array[] }> {
  pkijs.setEngine(
    'node',
    new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'] }),
  );
  const password = arrayBuffer(new TextEncoder().encode(passphrase));
  try {
    const pfx = pkijs.PFX.fromBER(arrayBuffer(file));
    await pfx.parseInternalValues({ password, checkIntegrity: true });
    const safe = pfx.parsedValue?.authenticatedSafe;
    if (!safe) throw new Error('no authenticated safe');
    await safe.parseInternalValues({ safeContents: safe.safeContents.map(() => ({ password })) });
    let pkcs8: Uint8Array | undefined;
    const certificates: pkijs.Certificate[] = [];
    for (const contents of safe.parsedValue?.safeContents ?? []) {
      for (const bag of contents.value.safeBags) {
        if (bag.bagId === SHROUDED_KEY_BAG) {
          const shrouded = bag.bagValue as pkijs.PKCS8ShroudedKeyBag;
          // Protected in pkijs's types, yet how its own PFX parsing decrypts a shrouded key.
          await (shrouded as unknown as { parseInternalValues(p: { password: ArrayBuffer }): Promise<void> }).parseInternalValues({ password });
          pkcs8 = new Uint8Array(shrouded.parsedValue!.toSchema().toBER());
        } else if (bag.bagId === KEY_BAG) {
          pkcs8 = new Uint8Array((bag.bagValue as pkijs.PrivateKeyInfo).toSchema().toBER());
        } else if (bag.bagId === CERT_BAG) {
          const parsed = (bag.bagValue as pkijs.CertBag).parsedValue;
          if (parsed instanceof pkijs.Certificate) certificates.push(parsed);
        }
      }
    }
    if (!pkcs8 || certificates.length === 0) throw new Error('it holds no private key or no certificate');
    const issues = (a: pkijs.Certificate, b: pkijs.Certificate) => a !== b && a.subject.isEqual(b.issuer);
    const leaf = certificates.find((c) => !certificates.some((other) => issues(c, other))) ?? certificates[0]!;
    const ordered = [leaf, ...certificates.filter((c) => c !== leaf)];
    return { pkcs8, certificates: ordered.map((c) => new Uint8Array(c.toSchema().toBER())) };
  } catch (err) {
    throw new Error(`SEAL_PKCS12_FILE cannot be opened with SEAL_PKCS12_PASSPHRASE: ${(err as Error).message}`);
  }
}
