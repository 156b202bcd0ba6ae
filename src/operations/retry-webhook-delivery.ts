// POST /webhooks/deliveries/{id}/retry: makes a pending or dead delivery due now and
// restarts its retry schedule. 404 for an unknown delivery, 409 for one already delivered.
import { conflict, notFound } from '../domain/errors.ts';
import { findDelivery, scheduleDeliveryNow } from '../store/webhook-deliveries.ts';
import { type Deps, inTransaction } from './deps.ts';

export async function retryWebhookDelivery(deps: Deps, deliveryId: string) {
  return inTransaction(deps, async (tx) => {
    const scheduled = await scheduleDeliveryNow(tx.db, deliveryId, tx.clock());
    if (scheduled) return scheduled;
    const existing = await findDelivery(tx.db, deliveryId);
    if (!existing) throw notFound('webhook delivery', deliveryId);
    throw conflict(`webhook delivery ${JSON.stringify(deliveryId)} was already delivered`, { deliveredAt: existing.deliveredAt });
  });
}
