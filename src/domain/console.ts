// The orders the console's table of a deal's investors can be sorted in (the route's `sort`
// parameter, the store's ORDER BY).

export const rowSorts = ['name', 'amount', 'days'] as const;
export type RowSort = (typeof rowSorts)[number];

/**
 * How much of their commitment an investor has paid (the table's `paid` filter): nothing received
 * (`none`); some, less than the commitment (`partly`); at least the commitment (`full`). Received
 * is the money allocated to them by payment decisions and reconciliation.
 */
export const paidStates = ['none', 'partly', 'full'] as const;
export type PaidState = (typeof paidStates)[number];
