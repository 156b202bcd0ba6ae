// An investor file (CSV) read into rows: the header's columns by their names, and a sample file.
import { parse } from 'csv-parse/browser/esm/sync';
import type { ImportReport } from './api.ts';
import { investorProblems, type InvestorInput } from './investor-record.ts';

export interface Row {
  line: number;
  input: InvestorInput;
  problems: string[];
}

export type ReportRow = ImportReport['rows'][number];

const HEADERS: Record<string, keyof InvestorInput> = {
  id: 'id',
  investor_id: 'id',
  investor_user_id: 'id',
  investoruserid: 'id',
  forename: 'forename',
  first_name: 'forename',
  surname: 'surname',
  last_name: 'surname',
  email: 'email',
  kyc: 'kycCheckLevel',
  kyc_level: 'kycCheckLevel',
  kyc_check_level: 'kycCheckLevel',
  kycchecklevel: 'kycCheckLevel',
  classifications: 'classifications',
  classes: 'classifications',
  status: 'status',
};

export const outcomeWords: Record<ReportRow['outcome'], string> = { created: 'new', updated: 'update', unchanged: 'no change', refused: 'refused' };

export const SAMPLE =
  'id,forename,surname,email,kyc_level,classifications\ninv-0001,Ada,Lovelace,ada@example.com,2,Professional\ninv-0002,Grace,Hopper,grace@example.com,1,Retail;Sophisticated\n';

export function parseInvestorCsv(text: string): { rows: Row[]; error?: string } {
  let records: Record<string, string>[];
  try {
    records = parse(text, {
      columns: (header: string[]) =>
        header.map((h) =>
          h
            .trim()
            .toLowerCase()
            .replace(/[\s-]+/g, '_'),
        ),
      skip_empty_lines: true,
      trim: true,
      bom: true,
      relax_column_count: true,
    });
  } catch (error) {
    return { rows: [], error: `The file is not a CSV this page can read: ${error instanceof Error ? error.message : String(error)}` };
  }
  const seen = new Map<string, number>();
  const rows = records.map((record, index) => {
    const input: InvestorInput = { id: '', forename: '', surname: '', email: '', kycCheckLevel: '', classifications: '', status: 'active' };
    for (const [header, value] of Object.entries(record)) {
      const key = HEADERS[header] ?? HEADERS[header.replace(/_/g, '')];
      if (key && value !== undefined) input[key] = String(value);
    }
    input.status ||= 'active';
    const line = index + 2;
    const problems = Object.entries(investorProblems(input)).map(([key, text]) => `${key}: needs ${text}`);
    const earlier = seen.get(input.id);
    if (input.id && earlier !== undefined) problems.push(`id ${input.id} is already on line ${earlier}`);
    if (input.id) seen.set(input.id, line);
    return { line, input, problems };
  });
  if (rows.length === 0) return { rows, error: 'The file has no rows under its header line.' };
  return { rows };
}
