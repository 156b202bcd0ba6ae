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
 * Runs a transaction again when PostgreSQL aborted it as a deadlock's victim or for a
 * serialization failure (either way it rolled the transaction back whole and nothing was written),
 * up to three attempts in all. For work that locks several rows (a group or chunk of moves, a batch
 * of credits) whose order another writer may cross.
 */
export async function retryAborted<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      const state = sqlState(err);
      if (attempt >= 3 || (state !== SQLSTATE.deadlockDetected && state !== SQLSTATE.serializationFailure)) throw err;
    }
  }
}

/** PostgreSQL chose this transaction as a deadlock's victim and rolled it back whole. */
export const isDeadlock = (err: unknown) => sqlState(err) === SQLSTATE.deadlockDetected;

export const isUniqueViolation = (err: unknown, constraint?: string) =>
  sqlState(err) === SQLSTATE.uniqueViolation && (constraint === undefined || (err as { constraint?: string }).constraint === constraint);

const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);
const unavailableMessages = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Query read timeout',
  'Client has encountered a connection error',
  'Cannot use a pool after calling end',
  // A connection ended under its transaction (a statement that outran the read timeout ends it).
  'Client was closed and is not queryable',
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
 * Failures after which nobody knows whether the statement's transaction committed: the server did
 * not answer in time (the client's own read timeout) or the connection ended, without a SQLSTATE
 * of a statement the server refused. A commit that waits for a synchronous standby that is gone
 * ends this way: PostgreSQL has written it locally and makes it visible once the wait ends, and
 * statement_timeout does not interrupt that wait.
 */
const isCutOff = (err: unknown) => {
  const code = sqlState(err);
  if (code !== undefined && !(code.startsWith('08') || code.startsWith('57P') || networkCodes.has(code))) return false;
  const message = err instanceof Error ? err.message : '';
  return (
    code !== undefined ||
    message.includes('Query read timeout') ||
    message.includes('Connection terminated') ||
    message.includes('Client has encountered a connection error')
  );
};

const OUTCOME_UNKNOWN = Symbol('dealflow.outcomeUnknown');

function markUnknown(err: unknown): unknown {
  if (typeof err === 'object' && err !== null && !(OUTCOME_UNKNOWN in err)) Object.defineProperty(err, OUTCOME_UNKNOWN, { value: true });
  return err;
}

/** True when `err` cut a commit off (commitWatch marked it): the write may or may not have landed. */
export const isOutcomeUnknown = (err: unknown) => typeof err === 'object' && err !== null && OUTCOME_UNKNOWN in err;

const statementWord = (text: string) => /^\s*(?:\/\*.*?\*\/\s*)*([a-z]+)/is.exec(text)?.[1]?.toLowerCase() ?? '';

/**
 * Follows one connection's transactions by the statements it sends, and marks a failure that cut a
 * commit off (isCutOff) as of unknown outcome: a COMMIT, a statement outside a transaction block
 * that may write (its commit is its own), and the ROLLBACK that follows a COMMIT cut off (Kysely
 * sends one and throws its failure instead of the commit's). Reads (`select`) are never marked.
 */
export function commitWatch() {
  let inBlock = false;
  let commitCutOff = false;
  return {
    watch<T>(text: string, sent: Promise<T>): Promise<T> {
      const word = statementWord(text);
      const wasCommitCutOff = commitCutOff;
      commitCutOff = false;
      let commits: boolean;
      if (word === 'begin' || word === 'start') {
        inBlock = true;
        commits = false;
      } else if (word === 'commit' || word === 'end') {
        inBlock = false;
        commits = true;
      } else if (word === 'rollback' || word === 'abort') {
        inBlock = false;
        // Whatever ends the rollback after a commit cut off (the connection closed, say), the
        // commit's outcome is what the caller must hear.
        if (wasCommitCutOff) return sent.catch((err: unknown) => Promise.reject(markUnknown(err)));
        commits = false;
      } else {
        commits = !inBlock && (word === 'with' ? /\b(insert|update|delete|merge)\b/i.test(text) : word !== 'select' && word !== 'show' && word !== 'set');
      }
      if (!commits) return sent;
      return sent.catch((err: unknown) => {
        if (isCutOff(err)) {
          markUnknown(err);
          if (word === 'commit' || word === 'end') commitCutOff = true;
        }
        throw err;
      });
    },
  };
}

/**
 * True when the database refused a value's characters (NUL in text or jsonb). Input is checked
 * before it gets here (http/storable-text.ts); this keeps any path we missed a 400, not a 500.
 */
export const isUnstorableText = (err: unknown) => sqlState(err) === SQLSTATE.characterNotInRepertoire || sqlState(err) === SQLSTATE.untranslatableCharacter;

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
  if (isOutcomeUnknown(err)) {
    return new AppError(
      'outcome-unknown',
      'The database stopped answering while this write was committing, so it may have been applied; send the same request with the same Idempotency-Key to learn its outcome',
      { extensions: { retryable: true } },
    );
  }
  if (isDatabaseUnavailable(err)) return new AppError('database-unavailable', 'The database is unavailable; retry shortly');
  return undefined;
}
