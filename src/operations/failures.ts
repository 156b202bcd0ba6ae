// What a failure that escaped an operation means to its caller. Operations throw domain errors
// (AppError) for what they refuse; a database failure that reaches the edge (a deadlock lost, a
// database down, a value it cannot store) is mapped by the store, which alone knows SQLSTATEs, so
// the HTTP layer and the command line never match database codes themselves.
import { AppError } from '../domain/errors.ts';
import * as store from '../store/errors.ts';

/** The failure as a domain error, or undefined when nothing knows it (a bug: report it as internal). */
export function domainErrorOf(err: unknown): AppError | undefined {
  return err instanceof AppError ? err : store.domainErrorOf(err);
}
