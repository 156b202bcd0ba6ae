// Portfolio assets: created and updated by the platform (management API), with its integer ids.
import { isCurrencyCode } from '../domain/currency.ts';
import { invalid, notFound } from '../domain/errors.ts';
import * as assets from '../store/assets.ts';
import type { Deps } from './deps.ts';

export interface PutAssetInput {
  name: string;
  currency: string;
}

export async function putAsset(deps: Deps, assetId: number, input: PutAssetInput) {
  if (!isCurrencyCode(input.currency)) {
    throw invalid([{ in: 'body', field: 'currency', detail: `"${input.currency}" is not an ISO 4217 currency code` }]);
  }
  return assets.upsertAsset(deps.db, { id: assetId, name: input.name, currency: input.currency }, deps.clock());
}

export async function getAsset(deps: Deps, assetId: number) {
  const asset = await assets.findAsset(deps.db, assetId);
  if (!asset) throw notFound('asset', String(assetId));
  return asset;
}
