// The sanctions check on the move path: a move into a step that takes money is refused (422) while
// the investor has an open or confirmed sanctions hit. A step takes money when the deal's payment
// settings name it as the payment step (where a matched payment moves the investor and whose amount
// field receives it). Both facts come with the move's one load statement (store/moves.ts), so the
// check costs the move no round trip.
import { type AppError, unprocessable } from '../domain/errors.ts';
import type { MoveFacts } from '../store/moves.ts';

/** The refusal of a move into `targetStepId` for this investor, or undefined. */
export function sanctionsRefusal(
  facts: Pick<MoveFacts, 'paymentStepId' | 'sanctioned'>,
  move: { investorUserId: string; targetStepId: string },
): AppError | undefined {
  return facts.paymentStepId !== null && move.targetStepId === facts.paymentStepId && facts.sanctioned.has(move.investorUserId)
    ? unprocessable('The investor matches a sanctions list entry under review or confirmed; steps that take money are blocked')
    : undefined;
}
