// Text that PostgreSQL can store as sent. A NUL character (U+0000) is refused by `text` and `jsonb`
// alike (SQLSTATE 22021 / 22P05, which surfaced as 500s), and an unpaired UTF-16 surrogate is not
// Unicode at all: the driver would silently store U+FFFD in its place. Both are refused as a 400
// naming the field: in bodies and import rows by the strict JSON parser (strict-json.ts), in path
// and query parameters by http/storable-text.ts. Found by the reliability suite's fuzzer.

export const isStorableText = (text: string): boolean => !text.includes('\u0000') && text.isWellFormed();

export const unstorableDetail = 'holds a NUL character or an unpaired surrogate, which cannot be stored';
