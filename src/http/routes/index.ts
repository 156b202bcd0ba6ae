// Every route module of the authenticated API, registered in this order.
import type { Api, AppContext } from '../app.ts';
import { backOfficeRoutes } from './back-office.ts';
import { dealRoutes } from './deals.ts';
import { investorRoutes } from './investors.ts';
import { whoamiRoutes } from './whoami.ts';

export type RouteModule = (app: Api, ctx: AppContext) => void | Promise<void>;

export const routes: RouteModule[] = [whoamiRoutes, dealRoutes, investorRoutes, backOfficeRoutes];
