// The currency codes a currency field offers: ISO 4217's current ones, by the service's own rule
// (src/domain/currency.ts, bundled here), so no picker offers a code the service refuses as withdrawn.
import { currentCurrencies } from '../../../../src/domain/currency.ts';

export const currencyOptions: readonly string[] = currentCurrencies();
