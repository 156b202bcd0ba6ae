// The CRM import's choices of how a file is written: the separator found in its header, the forms
// of its amounts and dates, and which row of an e-mail on several rows counts.
import type { MappedImport } from '../lib/api.ts';

export type NumberStyle = NonNullable<MappedImport['numbers']>;
export type DateStyle = NonNullable<MappedImport['dates']>;
export type Duplicates = NonNullable<MappedImport['duplicates']>;

const numberStyles: NumberStyle[] = ['1234.56', '1,234.56', '1.234,56'];
const dateStyles: DateStyle[] = ['yyyy-mm-dd', 'dd.mm.yyyy', 'mm/dd/yyyy'];
const duplicateWords: Record<Duplicates, string> = {
  last: 'The last row counts',
  first: 'The first row counts',
  sum: 'One investor, amounts added up',
  skip: 'Import none of them',
};
const separatorWords = { comma: 'commas', semicolon: 'semicolons', tab: 'tabs' } as const;

/** The separator, and a choice of the forms of amounts and dates for the columns the file has (undefined: no such column). */
export function WrittenForms(props: {
  separator: keyof typeof separatorWords;
  numbers: NumberStyle | undefined;
  dates: DateStyle | undefined;
  onNumbers: (style: NumberStyle) => void;
  onDates: (style: DateStyle) => void;
}) {
  const { separator, numbers, dates, onNumbers, onDates } = props;
  return (
    <fieldset className="sub">
      <legend>How the file is written</legend>
      <p className="muted small" data-testid="separator">
        Columns separated by {separatorWords[separator]} (found in the header line).
      </p>
      {(numbers !== undefined || dates !== undefined) && (
        <div className="field-pair">
          {numbers !== undefined && (
            <label className="field">
              <span className="field-label">Amounts written as</span>
              <select name="numbers" value={numbers} onChange={(e) => onNumbers(e.target.value as NumberStyle)}>
                {numberStyles.map((style) => (
                  <option key={style} value={style}>
                    {style}
                  </option>
                ))}
              </select>
            </label>
          )}
          {dates !== undefined && (
            <label className="field">
              <span className="field-label">Dates written as</span>
              <select name="dates" value={dates} onChange={(e) => onDates(e.target.value as DateStyle)}>
                {dateStyles.map((style) => (
                  <option key={style} value={style}>
                    {style}
                  </option>
                ))}
              </select>
            </label>
          )}
        </div>
      )}
    </fieldset>
  );
}

/** Which row of an e-mail on several rows counts. */
export function DuplicatesChoice({ value, onChange }: { value: Duplicates; onChange: (value: Duplicates) => void }) {
  return (
    <label className="field duplicates-choice">
      <span className="field-label">Rows with the same e-mail</span>
      <select name="duplicates" value={value} onChange={(e) => onChange(e.target.value as Duplicates)}>
        {(Object.keys(duplicateWords) as Duplicates[]).map((d) => (
          <option key={d} value={d}>
            {duplicateWords[d]}
          </option>
        ))}
      </select>
    </label>
  );
}
