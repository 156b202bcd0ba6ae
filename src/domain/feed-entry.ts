// An entry of the outbox as webhook bodies, the pull feed and the live stream carry it.

export interface OutboxEntry {
  id: string;
  type: string;
  timestamp: string;
  dealId: string | null;
  sequence: number;
  data: unknown;
}

/** The feeds that cross deals, for the console's Inbox: every deal's edit requests, and every deal's four-eyes approvals. */
export type CrossDealFeed = 'edit-requests' | 'approvals';
