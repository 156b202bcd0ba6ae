// The orders the staff app's table of a deal's investors can be sorted in (the route's `sort`
// parameter, the store's ORDER BY).

export const rowSorts = ['name', 'amount', 'days'] as const;
export type RowSort = (typeof rowSorts)[number];
