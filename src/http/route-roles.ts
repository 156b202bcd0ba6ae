// The least staff role each route needs: one table for every staff route, for API keys, JWTs and
// cookies alike (auth.ts applies it after the route's own `config.roles`). Reads need `viewer`;
// a write not listed here needs `admin`, so a new route fails closed. docs/reference/roles.md is
// the same table for people, and test/http/route-roles.test.ts keeps the two and the routes in step.
import type { StaffRole } from '../domain/principal.ts';

/** Writes that need less than admin, keyed `METHOD /path` as in openapi.json. */
export const writeRoles: Readonly<Record<string, StaffRole>> = {
  // Reads sent as POST.
  'POST /deals/deal/all-transactions': 'viewer',
  'POST /console/deals/{dealId}/workflow/check': 'viewer',
  'POST /console/live/tickets': 'viewer',
  // Day-to-day operations: deals and investors, moves, imports, edits, edit-request decisions, statements.
  'PUT /deals/deal/{dealId}': 'operator',
  'PUT /investors/{investorUserId}': 'operator',
  'POST /investors/portal-invitations': 'operator',
  'PUT /investors/{investorUserId}/language': 'operator',
  'POST /deals/deal/{dealId}/jump-to-step': 'operator',
  'POST /deals/deal/{dealId}/jump-to-step/bulk': 'operator',
  'POST /deals/deal/{dealId}/jump-to-step/import': 'operator',
  'POST /investors/import': 'operator',
  'POST /deals/event/{eventId}/edit': 'operator',
  'POST /deals/request-to-edit': 'operator',
  'POST /deals/request-to-edit/{requestId}/approve': 'operator',
  'POST /deals/request-to-edit/{requestId}/reject': 'operator',
  'PUT /portfolio/assets/{assetId}': 'operator',
  'POST /portfolio/transactions/subscriptions': 'operator',
  'POST /payments/statements': 'operator',
  'POST /console/batches/{batchId}/undo': 'operator',
  'POST /deals/deal/{dealId}/documents': 'operator',
  'POST /deals/deal/{dealId}/documents/{documentId}/releases': 'operator',
  'POST /deals/deal/{dealId}/agreement-template': 'operator',
  // Payment decisions.
  'POST /payments/lines/{lineId}/assign': 'approver',
  'POST /payments/lines/{lineId}/split': 'approver',
  'POST /payments/lines/{lineId}/dismiss': 'approver',
  // Countersigning a subscription agreement (the investor signs it themselves in the portal).
  'POST /deals/deal/{dealId}/agreements/{investorUserId}/signing-options': 'approver',
  'POST /deals/deal/{dealId}/agreements/{investorUserId}/signatures': 'approver',
  // Checks before money: a screen is day-to-day work, a hit's decision the approver's.
  'POST /sanctions/screen': 'operator',
  'POST /sanctions/hits/{hitId}/confirm': 'approver',
  'POST /sanctions/hits/{hitId}/dismiss': 'approver',
  // A check by the KYC provider: day-to-day work; only the provider's signed result raises the level.
  'POST /investors/{investorUserId}/kyc-checks': 'operator',
  // A category statement clears an expired one's block before money: the approver's.
  'POST /investors/{investorUserId}/category-statements': 'approver',
  // KYC evidence: files uploaded for an investor and their decisions are day-to-day work.
  'POST /deals/deal/{dealId}/kyc/{investorUserId}/documents': 'operator',
  'POST /deals/deal/{dealId}/kyc/{investorUserId}/documents/{documentId}/accept': 'operator',
  'POST /deals/deal/{dealId}/kyc/{investorUserId}/documents/{documentId}/reject': 'operator',
  // Four-eyes decisions: at least the operator (a bulk move); the operation asks the approver for a
  // payment decision and the admin for a payee change (domain/four-eyes.ts roleToDecide).
  'POST /approvals/{proposalId}/approve': 'operator',
  'POST /approvals/{proposalId}/reject': 'operator',
  // A person's own daily digest: any staff person for themselves; the operation lets only an admin set another's.
  'PUT /staff/{personId}/digest': 'viewer',
  // Staff people: invited, given another role and deactivated by an admin (the default below).
  // Everything else (workflows and migrations, payment settings and payee, four-eyes rules, webhooks, erasure, sanctions list loads) is admin's.
};

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `/base/deals/deal/:dealId` → `/base/deals/deal/{dealId}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Each registered route's answer, found once: a scan of the table per write request cost more than the rest of the check. */
const known = new Map<string, StaffRole>();
/** More keys than any service registers routes: a caller passing other URLs gets answers, not a growing map. */
const KNOWN_MAX = 2_000;

/** The least role a staff caller needs for a route, given its method and its registered URL (with any prefix). */
export function minimumRole(method: string, url: string): StaffRole {
  if (readMethods.has(method)) return 'viewer';
  const key = `${method} ${url}`;
  let role = known.get(key);
  if (role === undefined) {
    role = findMinimumRole(method, url);
    if (known.size < KNOWN_MAX) known.set(key, role);
  }
  return role;
}

function findMinimumRole(method: string, url: string): StaffRole {
  const path = openApiPath(url);
  let best: { length: number; role: StaffRole } | undefined;
  for (const [key, role] of Object.entries(writeRoles)) {
    const [keyMethod, keyPath] = key.split(' ') as [string, string];
    if (keyMethod === method && path.endsWith(keyPath) && (!best || keyPath.length > best.length)) best = { length: keyPath.length, role };
  }
  return best?.role ?? 'admin';
}
