// The CMS signature inside a sealed PDF (docs/reference/signature-format.md): a detached CMS
// SignedData over the PDF's byte range, as PAdES baseline B-B asks (ETSI EN 319 142-1): the signed
// attributes are content-type, message-digest and ESS signing-certificate-v2 (RFC 5035, the SHA-256
// of the signing certificate with its issuer and serial number); the claimed signing time is the
// signature dictionary's /M, which the byte range covers. @signpdf/signpdf calls `sign` with the
// bytes to sign.
import { createHash, webcrypto } from 'node:crypto';
import { Signer } from '@signpdf/utils';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

const engine = new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'] });
pkijs.setEngine('node', engine);

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  sha256: '2.16.840.1.101.3.4.2.1',
};

/** The seal's key and certificates: the signing certificate first, then any chain up to its root (DER). */
export interface SealKey {
  privateKey: webcrypto.CryptoKey;
  certificates: Uint8Array[];
}

const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/** ESS signing-certificate-v2: SEQUENCE { certs SEQUENCE OF ESSCertIDv2 { certHash (SHA-256, the default), issuerSerial } }. */
function signingCertificateV2(certificate: pkijs.Certificate, der: Uint8Array): asn1js.Sequence {
  const issuerSerial = new asn1js.Sequence({
    value: [
      // GeneralNames: one directoryName [4], explicitly tagged.
      new asn1js.Sequence({
        value: [new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 4 }, value: [certificate.issuer.toSchema()] })],
      }),
      certificate.serialNumber,
    ],
  });
  const certHash = new asn1js.OctetString({ valueHex: toArrayBuffer(createHash('sha256').update(der).digest()) });
  return new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [certHash, issuerSerial] })] })] });
}

export class PadesSigner extends Signer {
  readonly #key: SealKey;

  constructor(key: SealKey) {
    super();
    this.#key = key;
  }

  override async sign(pdfBuffer: Buffer): Promise<Buffer> {
    const [signingDer, ...chainDer] = this.#key.certificates;
    if (!signingDer) throw new Error('the seal has no certificate');
    const certificate = pkijs.Certificate.fromBER(toArrayBuffer(signingDer));
    const digest = createHash('sha256').update(pdfBuffer).digest();
    const attribute = (type: string, value: asn1js.AsnType) => new pkijs.Attribute({ type, values: [value] });
    const signedData = new pkijs.SignedData({
      version: 1,
      encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
      signerInfos: [
        new pkijs.SignerInfo({
          version: 1,
          sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
          signedAttrs: new pkijs.SignedAndUnsignedAttributes({
            type: 0,
            attributes: [
              attribute(OID.contentType, new asn1js.ObjectIdentifier({ value: OID.data })),
              attribute(OID.messageDigest, new asn1js.OctetString({ valueHex: toArrayBuffer(digest) })),
              attribute(OID.signingCertificateV2, signingCertificateV2(certificate, signingDer)),
            ],
          }),
        }),
      ],
      certificates: [certificate, ...chainDer.map((der) => pkijs.Certificate.fromBER(toArrayBuffer(der)))],
    });
    await signedData.sign(this.#key.privateKey, 0, 'SHA-256', undefined, engine);
    const contentInfo = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
    return Buffer.from(contentInfo.toSchema().toBER(false));
  }
}
