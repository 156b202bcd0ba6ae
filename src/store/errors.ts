// Database errors by SQLSTATE (err.code), never by class: `pg` and PGlite throw different classes.
// `domainErrorOf` turns the failures a caller can act on into domain errors; http/ and the command
// line see only those.
import { AppError } from '../domain/errors.ts';

export const SQLSTATE = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  checkViolation: '23514',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  lockNotAvailable: '55P03',
  queryCanceled: '57014',
  readOnlySqlTransaction: '25006',
  characterNotInRepertoire: '22021',
  untranslatableCharacter: '22P05',
} as const;

export const sqlState = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/**
 * Runs a transaction again when PostgreSQL chose it as a deadlock's victim (it has then written
 * nothing), up to three attempts in all. For work that locks several rows (a chunk of moves, a batch
 * of credits) whose order another writer may cross.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= 3 || sqlState(err) !== SQLSTATE.deadlockDetected) throw err;
    }
  }
}

/** PostgreSQL chose this transaction as a deadlock's victim and rolled it back whole. */
export const isDeadlock = (err: unknown) => sqlState(err) === SQLSTATE.deadlockDetected;

export const isUniqueViolation = (err: unknown, constraint?: string) =>
  sqlState(err) === SQLSTATE.uniqueViolation &&
  (constraint === undefined || (err as { constraint?: string }).constraint === constraint);

const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);
const unavailableMessages = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Query read timeout',
  'Client has encountered a connection error',
  'Cannot use a pool after calling end',
  'the database system is',
];

/**
 * True when the database did not answer, rather than refusing the statement: class 08 (connection
 * exception), 57P0x (shutdown, cannot connect now), 53300 (too many connections), 25006 (a write
 * on a host that turned standby under a failover: store/hosts.ts drops that connection and finds
 * the new primary), a statement or lock timeout, socket errors, and the pool's own connect timeout.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = sqlState(err);
  if (code !== undefined) {
    if (code.startsWith('08') || code.startsWith('57P') || code === '53300') return true;
    if (code === SQLSTATE.queryCanceled || code === SQLSTATE.lockNotAvailable) return true;
    if (code === SQLSTATE.readOnlySqlTransaction) return true;
    if (networkCodes.has(code)) return true;
  }
  const message = err instanceof Error ? err.message : '';
  return unavailableMessages.some((m) => message.includes(m));
}

/**
 * True when the database refused a value's characters (NUL in text or jsonb). Input is checked
 * before it gets here (http/storable-text.ts); this keeps any path we missed a 400, not a 500.
 */
export const isUnstorableText = (err: unknown) =>
  sqlState(err) === SQLSTATE.characterNotInRepertoire || sqlState(err) === SQLSTATE.untranslatableCharacter;

/**
 * The domain error a database failure means to whoever asked: a value it cannot store (400), a
 * deadlock it lost (409, retryable: PostgreSQL rolled the victim's transaction back whole, nothing
 * was applied), a database that does not answer (503). Undefined for anything else (a bug: 500).
 */
export function domainErrorOf(err: unknown): AppError | undefined {
  if (isUnstorableText(err)) return new AppError('validation', 'A value holds characters that cannot be stored (NUL or an unpaired surrogate)');
  if (sqlState(err) === SQLSTATE.deadlockDetected) {
    return new AppError('conflict', 'A concurrent change got in the way and nothing was applied; retry', { extensions: { retryable: true } });
  }
  if (isDatabaseUnavailable(err)) return new AppError('database-unavailable', 'The database is unavailable; retry shortly');
  return undefined;
}
