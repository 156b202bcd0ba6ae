// ISO 4217 currency codes: the real list (Intl knows it), not any three letters.
const known = new Set<string>(Intl.supportedValuesOf('currency'));

export const isCurrencyCode = (value: string): boolean => /^[A-Z]{3}$/.test(value) && known.has(value);
