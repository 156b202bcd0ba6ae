// The demo deal's payment settings: the payment step ("Payment": funds received) receives the amount
// in amount_received and the value date in received_on; completing books the demo asset at 2.50 a
// unit (every demo commitment divides). The asset is the demo's own id, created when absent.
import { DEFAULT_COMMITMENT_FIELD_KEY, DEFAULT_CURRENCY_FIELD_KEY } from '../domain/commitment.ts';
import { findAsset } from '../store/assets.ts';
import { upsertPaymentSettings } from '../store/payment-settings.ts';
import { putAsset } from './assets.ts';
import type { Deps } from './deps.ts';

export const DEMO_ASSET_ID = 900_001;

export async function seedDemoPaymentSettings(tx: Deps, dealId: string, currency: string): Promise<void> {
  if (!(await findAsset(tx.db, DEMO_ASSET_ID))) await putAsset(tx, DEMO_ASSET_ID, { name: 'Harbour Logistics Series A shares (demo)', currency });
  await upsertPaymentSettings(
    tx.db,
    {
      dealId,
      paymentStepId: `${dealId}.payment`,
      amountFieldKey: 'amount_received',
      dateFieldKey: 'received_on',
      commitmentFieldKey: DEFAULT_COMMITMENT_FIELD_KEY,
      currencyFieldKey: DEFAULT_CURRENCY_FIELD_KEY,
      assetId: DEMO_ASSET_ID,
      pricePerUnit: '2.5',
      unitDecimals: 0,
      // The example account of the IBAN standard's documentation: valid, and nobody's.
      beneficiaryName: 'Harbour Logistics Series A (demo)',
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
    },
    tx.clock(),
  );
}
