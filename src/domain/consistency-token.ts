// Consistency tokens (docs/guides/postgresql-and-replicas.md): the primary's WAL position (an LSN, as PostgreSQL
// prints it: `16/B374D848`) after a write committed. A read that sends one back is served only by a
// database that has replayed at least that far.

/** The token as a comparable number; undefined when it is not an LSN. */
export function parseConsistencyToken(text: string): bigint | undefined {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!match) return undefined;
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

export const formatConsistencyToken = (lsn: bigint) => `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
