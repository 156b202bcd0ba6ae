// What the service reports of its databases (GET /readyz): each read replica's state and each host's role.

export type ReplicaState = 'starting' | 'up' | 'lagging' | 'down';

export interface ReplicaStatus {
  /** host:port/database of the replica (never its password). */
  name: string;
  state: ReplicaState;
  /** Milliseconds behind the primary, as last seen. */
  lagMs: number | null;
  replayLsn: string | null;
  error: string | null;
  /** Whether reads without a consistency token go to it now (state up). */
  servesReads: boolean;
}

export type HostRole = 'primary' | 'standby' | 'read-only' | 'unreachable' | 'unknown';

export interface HostStatus {
  /** host:port, as in DATABASE_URL. */
  name: string;
  role: HostRole;
  /** Why the host is not used, as last seen. */
  error: string | null;
}
