// An entry of the outbox as webhook bodies, the pull feed and the live stream carry it.

export interface OutboxEntry {
  id: string;
  type: string;
  timestamp: string;
  dealId: string | null;
  sequence: number;
  data: unknown;
}
