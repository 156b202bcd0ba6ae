// Investors' category statements to renew: those expired (a payment step is closed to them until an
// approver records a renewed statement) and those expiring within 30 days, soonest first.
import { consoleApi } from '../lib/api.ts';
import { Renewals } from './Renewals.tsx';

const categoryNames: Record<string, string> = {
  'certified-high-net-worth': 'Certified high net worth',
  'certified-sophisticated': 'Certified sophisticated',
  'self-certified-sophisticated': 'Self-certified sophisticated',
  'elective-professional': 'Elective professional',
  professional: 'Professional',
};

export function CategoryRenewals() {
  return (
    <Renewals
      id="renewals-title"
      title="Category statements to renew"
      intro="Expired, or expiring within 30 days. An expired statement closes a deal's payment step to the investor until a renewed one is recorded."
      empty="No statement expires within 30 days"
      label="Statements to renew, soonest first"
      load={(page) => consoleApi.expiringCategories({ page, limit: 20 })}
      what={{
        heading: 'Category',
        cell: (r) => (
          <>
            {categoryNames[r.category] ?? r.category}
            <div className="muted small">signed {r.signedOn}</div>
          </>
        ),
      }}
    />
  );
}
