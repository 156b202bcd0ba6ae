// The EPC QR code (EPC069-12, "SEPA credit transfer") a banking app scans to fill in the transfer.
// Drawn by `qrcode` as SVG and shown as a data: image (the Content-Security-Policy allows data:
// images, and nothing inline), always dark on white so that it scans in the dark theme too.
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';

export function QrCode({ payload, label }: { payload: string; label: string }) {
  const [src, setSrc] = useState<string>();
  useEffect(() => {
    let live = true;
    // Error correction M, as the EPC guideline asks; a quiet zone of four modules.
    QRCode.toString(payload, { type: 'svg', errorCorrectionLevel: 'M', margin: 4, color: { dark: '#000000', light: '#ffffff' } }).then(
      (svg) => live && setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`),
      () => live && setSrc(undefined),
    );
    return () => {
      live = false;
    };
  }, [payload]);
  return src ? (
    <img className="qr" src={src} alt={label} width={240} height={240} data-testid="epc-qr" />
  ) : (
    <div className="qr qr-pending" aria-hidden="true" />
  );
}
