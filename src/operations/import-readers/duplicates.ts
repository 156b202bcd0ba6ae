// Rows of one file with the same e-mail (a CRM export lists a person once per opportunity): the
// person says which counts, and the import never decides silently. The file is read twice: a
// first pass finds the e-mails on more than one row (and, for `sum`, adds their amounts), the
// second imports. Every row of such an e-mail is reported with the rows it shares the e-mail with.
// - last (the default, as before this choice existed): the last row's values; the earlier rows
//   change nothing;
// - first: the first row's values; the later rows change nothing;
// - sum: the first row's values, with the amounts (fields of kind amount or number) of all its rows
//   added up; rows in different currencies cannot be added and are all refused;
// - skip: none of the rows is imported; each is refused, naming the others.
import Big from 'big.js';
import type { FieldError } from '../../domain/errors.ts';

export const duplicatePolicies = ['last', 'first', 'sum', 'skip'] as const;
export type DuplicatePolicy = (typeof duplicatePolicies)[number];

/** One e-mail's rows, and for `sum` its amounts added up per field (undefined: one could not be read). */
export interface DuplicateGroup {
  rows: number[];
  sums: Map<string, { total: Big; decimals: number } | undefined>;
  /** Currency field → the currencies its rows give. */
  currencies: Map<string, Set<string>>;
}

/** The first pass: e-mail → its group, for e-mails on more than one row. */
export class DuplicateFinder {
  private readonly groups = new Map<string, DuplicateGroup>();

  /** `amounts`: the row's amount fields, canonical, or undefined where unreadable. */
  add(email: string, row: number, amounts: Map<string, string | undefined>, currencies: Map<string, string>): void {
    if (email === '') return;
    let group = this.groups.get(email);
    if (!group) {
      group = { rows: [], sums: new Map(), currencies: new Map() };
      this.groups.set(email, group);
    }
    group.rows.push(row);
    for (const [key, value] of amounts) {
      const sum = group.rows.length === 1 ? { total: new Big(0), decimals: 0 } : group.sums.get(key);
      if (value === undefined || sum === undefined) group.sums.set(key, undefined);
      else group.sums.set(key, { total: sum.total.plus(value), decimals: Math.max(sum.decimals, value.split('.')[1]?.length ?? 0) });
    }
    for (const [key, value] of currencies) group.currencies.set(key, (group.currencies.get(key) ?? new Set()).add(value));
  }

  /** The groups of more than one row. */
  duplicates(): Map<string, DuplicateGroup> {
    return new Map([...this.groups].filter(([, g]) => g.rows.length > 1));
  }
}

export type DuplicateDecision =
  /** Import this row (with `data` overriding its amounts, for sum). */
  | { import: true; data?: Record<string, string> }
  /** Change nothing for this row: another row of its e-mail counts. */
  | { import: false }
  /** Refuse this row. */
  | { import: false; errors: FieldError[] };

/** What the policy does with `row`, one of `group`'s rows; `field` names the e-mail column in refusals. */
export function decide(policy: DuplicatePolicy, group: DuplicateGroup, row: number, email: string, field: string): DuplicateDecision {
  const others = group.rows.filter((r) => r !== row).join(', ');
  switch (policy) {
    case 'last':
      return row === group.rows.at(-1) ? { import: true } : { import: false };
    case 'first':
      return row === group.rows[0] ? { import: true } : { import: false };
    case 'skip':
      return {
        import: false,
        errors: [{ in: 'body', field, detail: `"${email}" is also on data row ${others}; with duplicates=skip no row of it is imported` }],
      };
    case 'sum': {
      const mixed = [...group.currencies].find(([, set]) => set.size > 1);
      if (mixed) {
        return {
          import: false,
          errors: [
            {
              in: 'body',
              field,
              detail: `"${email}" is also on data row ${others} in another currency (${[...mixed[1]].join(', ')}): amounts in different currencies cannot be added`,
            },
          ],
        };
      }
      if (row !== group.rows[0]) return { import: false };
      const data: Record<string, string> = {};
      for (const [key, sum] of group.sums) {
        if (sum === undefined) {
          return {
            import: false,
            errors: [
              { in: 'body', field, detail: `"${email}" is also on data row ${others}, and the ${key} of one of them cannot be read, so they cannot be added` },
            ],
          };
        }
        data[key] = sum.total.toFixed(sum.decimals);
      }
      return { import: true, data };
    }
  }
}
