// GET /webhooks/deliveries: the webhook deliveries, newest first, optionally of one
// status or one deal. Admin only. Never shows a secret.
import type { DeliveryStatus } from '../domain/outbox-event.ts';
import { listDeliveries } from '../store/webhook-deliveries.ts';
import type { Deps } from './deps.ts';
import { forReading } from './reads.ts';

export async function listWebhookDeliveries(deps: Deps, query: { status?: DeliveryStatus; dealId?: string; limit?: number; page?: number }) {
  const limit = query.limit ?? 20;
  const page = query.page ?? 1;
  const { deliveries, total } = await listDeliveries(forReading(deps).db, {
    ...(query.status ? { status: query.status } : {}),
    ...(query.dealId !== undefined ? { dealId: query.dealId } : {}),
    limit,
    page,
  });
  return { output: deliveries, page, totalPages: Math.ceil(total / limit) };
}
