// Every route module of the authenticated API, registered in this order.
import type { Api, AppContext } from '../context.ts';
import { activeInvestorRoutes } from './active-investors.ts';
import { activityRoutes } from './activity.ts';
import { agreementRoutes } from './agreements.ts';
import { auditRoutes } from './audit.ts';
import { consoleBoardRoutes } from './console-board.ts';
import { bulkMoveRoutes } from './bulk-moves.ts';
import { consoleRoutes } from './console.ts';
import { dealRoutes } from './deals.ts';
import { approvalRoutes } from './approvals.ts';
import { documentRoutes } from './documents.ts';
import { editRequestRoutes } from './edit-requests.ts';
import { eventRoutes } from './events.ts';
import { formImplementationRoutes } from './form-implementations.ts';
import { funnelRoutes } from './funnel.ts';
import { importJobRoutes } from './import-jobs.ts';
import { importRoutes } from './imports.ts';
import { investorCategoryRoutes } from './investor-categories.ts';
import { investorDealRoutes } from './investor-deals.ts';
import { investorRoutes } from './investors.ts';
import { journeyRoutes } from './journeys.ts';
import { kycCheckRoutes } from './kyc-checks.ts';
import { kycDocumentRoutes } from './kyc-documents.ts';
import { kycRoutes } from './kyc.ts';
import { liveRoutes } from './live.ts';
import { paymentReferenceRoutes } from './payment-references.ts';
import { paymentRoutes } from './payments.ts';
import { portalInvitationRoutes } from './portal-invitations.ts';
import { portfolioRoutes } from './portfolio.ts';
import { sanctionsRoutes } from './sanctions.ts';
import { staffRoutes } from './staff.ts';
import { webhookRoutes } from './webhooks.ts';
import { whoamiRoutes } from './whoami.ts';
import { workflowMigrationRoutes } from './workflow-migration.ts';
import { workflowRoutes } from './workflows.ts';

export type RouteModule = (app: Api, ctx: AppContext) => void | Promise<void>;

export const routes: RouteModule[] = [
  whoamiRoutes,
  dealRoutes,
  investorRoutes,
  investorDealRoutes,
  portalInvitationRoutes,
  workflowRoutes,
  workflowMigrationRoutes,
  funnelRoutes,
  journeyRoutes,
  bulkMoveRoutes,
  importRoutes,
  importJobRoutes,
  eventRoutes,
  formImplementationRoutes,
  activeInvestorRoutes,
  paymentReferenceRoutes,
  editRequestRoutes,
  portfolioRoutes,
  webhookRoutes,
  consoleBoardRoutes,
  paymentRoutes,
  consoleRoutes,
  activityRoutes,
  auditRoutes,
  liveRoutes,
  sanctionsRoutes,
  investorCategoryRoutes,
  kycCheckRoutes,
  kycRoutes,
  kycDocumentRoutes,
  documentRoutes,
  agreementRoutes,
  staffRoutes,
  approvalRoutes,
];
