// An investor's money against their commitment, as the console's cards, rows and drawer show it.
import { Type } from 'typebox';

/** What was received against the commitment (payment decisions and reconciliation). */
export const PaymentProgress = Type.Object({
  receivedAmount: Type.Union([Type.String(), Type.Null()], { description: 'Money allocated to the investor in this deal; null when none was' }),
  remainingAmount: Type.Union([Type.String(), Type.Null()], {
    description: 'The commitment less what was received, at least 0; null when nothing was received or nothing is committed',
  }),
});
