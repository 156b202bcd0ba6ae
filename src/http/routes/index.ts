// Every route module of the authenticated API, registered in this order.
import type { Api, AppContext } from '../app.ts';
import { backOfficeRoutes } from './back-office.ts';
import { dealRoutes } from './deals.ts';
import { eventRoutes } from './events.ts';
import { investorRoutes } from './investors.ts';
import { journeyRoutes } from './journeys.ts';
import { whoamiRoutes } from './whoami.ts';
import { workflowRoutes } from './workflows.ts';

export type RouteModule = (app: Api, ctx: AppContext) => void | Promise<void>;

export const routes: RouteModule[] = [whoamiRoutes, dealRoutes, investorRoutes, workflowRoutes, journeyRoutes, eventRoutes, backOfficeRoutes];
