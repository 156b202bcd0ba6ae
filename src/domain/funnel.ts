// The funnel's filters: which journeys a funnel counts (operations/funnel.ts reads it, store/funnel.ts
// turns it into SQL).

export interface FunnelFilter {
  /** Journeys that entered the deal on or after this day (UTC, YYYY-MM-DD). */
  enteredFrom?: string | undefined;
  /** … and on or before this day. */
  enteredTo?: string | undefined;
  /** Investors holding this class (contact.classifications[].investorClass). */
  classification?: string | undefined;
}
