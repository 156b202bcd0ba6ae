// Investors whose KYC level has expired or expires within 30 days, soonest first: an expired level
// sends the investor back to the KYC requests in the portal, and moves that need the level are refused.
import { consoleApi } from '../lib/api.ts';
import { Renewals } from './Renewals.tsx';

export function KycRenewals() {
  return (
    <Renewals
      id="kyc-renewals-title"
      title="KYC to renew"
      intro="Expired, or expiring within 30 days. Once expired, the investor is asked for the documents again in the portal."
      empty="No KYC expires within 30 days"
      label="KYC levels to renew, soonest first"
      load={(page) => consoleApi.expiringKyc(page)}
      what={{
        heading: 'Level',
        cell: (r) => (
          <>
            {r.level}
            <div className="muted small">accepted {r.acceptedOn}</div>
          </>
        ),
      }}
    />
  );
}
