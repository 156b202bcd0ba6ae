// The first start of an embedded installation, made resumable. A SIGKILL can land anywhere, so
// every step leaves a state the next start can finish:
//
// 1. The admin token and the first-run record saying "token not yet shown" are written in ONE
//    transaction: a token never exists without that record.
// 2. The token is printed (a synchronous write), and only then is the record marked "shown".
//    A start that finds a token not marked shown cannot know whether anyone saw it: it revokes it,
//    and creates and prints a new one (step 1 again). So every start ends with a usable admin token
//    that was printed, by this start or by an earlier one.
// 3. The demo deal is seeded (one transaction, skipped when the deal exists), and only then is the
//    first run marked complete; a start that finds it incomplete seeds again (unless --no-demo).
//
// A start that finds an unfinished first run says so. An installation whose admin tokens were all
// revoked gets a new one the same way (as before this record existed).
//
// Whether the first run happened is this record alone, which only `serve` writes: not whether the
// data folder exists, nor whether an admin token does. A command run before the first start
// (`dealflow verify`, `token create`, `seed`) creates the folder and may make a token; the first
// start still prints its token, the demo deal and the Try-it lines (which need the token it printed).
import * as firstRun from '../store/first-run.ts';
import type { Db } from '../store/schema.ts';
import { hasLiveAdminToken, revokeToken } from '../store/tokens.ts';
import type { Deps } from './deps.ts';
import { seedDemo } from './seed.ts';
import { createToken } from './tokens.ts';
import { recordTokenChange, SYSTEM_PRINCIPAL } from './audit-entries.ts';

export const FIRST_RUN_TOKEN_NAME = 'first-run admin';

export interface FirstRunOptions {
  /** Seed the demo deal if the first run has not completed (serve without --no-demo). */
  demo: boolean;
  /** Shows one line to the person starting the service; must have written it when it returns. */
  show: (line: string) => void;
}

export interface FirstRunOutcome {
  /** The token printed by this start, if it printed one (for the Try-it lines). */
  token: string | undefined;
  /** This start finished a first run an earlier start had begun. */
  resumed: boolean;
  demo: { dealId: string; investors: number } | undefined;
}

export async function completeFirstRun(deps: Deps, options: FirstRunOptions): Promise<FirstRunOutcome> {
  const { db } = deps;
  let state = await firstRun.findFirstRun(db);
  const outcome: FirstRunOutcome = { token: undefined, resumed: false, demo: undefined };
  if (state !== undefined && state.completedAt === null) {
    outcome.resumed = true;
    options.show('Finishing a first start that was cut short (the process stopped before it completed).');
  }
  const unshown = state?.tokenId != null && state.tokenShownAt === null;
  if (state === undefined || unshown || !(await hasLiveAdminToken(db))) {
    if (unshown) options.show('The admin token of that start may never have been shown: it is revoked, and here is a new one.');
    outcome.token = await issueAndShowToken(db, deps.clock, unshown ? state!.tokenId! : undefined, options.show);
    state = await firstRun.findFirstRun(db);
  }
  if (state?.completedAt === null) {
    if (options.demo) {
      const demo = await seedDemo(deps);
      if (demo.created) outcome.demo = { dealId: demo.dealId, investors: demo.investors };
    }
    await firstRun.markCompleted(db, deps.clock());
  }
  return outcome;
}

async function issueAndShowToken(db: Db, clock: () => Date, revoke: string | undefined, show: (line: string) => void) {
  const created = await db.transaction().execute(async (trx) => {
    if (revoke !== undefined && (await revokeToken(trx, revoke, clock())))
      await recordTokenChange(trx, SYSTEM_PRINCIPAL, 'token.revoked', { id: revoke }, clock());
    const token = await createToken(trx, { name: FIRST_RUN_TOKEN_NAME, role: 'admin' }, clock());
    await firstRun.recordUnshownToken(trx, token.id, clock());
    return token;
  });
  show(`Admin token (shown once, keep it): ${created.token}`);
  await firstRun.markTokenShown(db, created.id, clock());
  return created.token;
}
