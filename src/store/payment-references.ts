// Payment references live on the journey row (one per investor per deal, unique across deals).
import { randomInt } from 'node:crypto';
import { newPaymentReference } from '../domain/payment-reference.ts';

/** A fresh reference; uniqueness is the journeys.payment_reference constraint's job (retry on 23505). */
export const generatePaymentReference = () => newPaymentReference(() => randomInt(10));
