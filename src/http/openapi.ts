// The OpenAPI document, generated from the route schemas (committed as openapi.json; a test fails
// when the two drift).
import type { Config } from '../config.ts';
import type { Deps } from '../operations/deps.ts';
import { newUuid, systemClock } from '../operations/deps.ts';
import { buildApp } from './app.ts';

/**
 * Routes are described, never called, so no database is opened: the app is built over a handle that
 * refuses any use (a route that touched the database while registering would fail here, loudly).
 */
const noDatabase = new Proxy({} as Deps['db'], {
  get: (_target, member) => {
    throw new Error(`The OpenAPI document is generated without a database; a route used db.${String(member)} while registering`);
  },
});

export async function generateOpenApi(config: Config): Promise<unknown> {
  const app = await buildApp({ db: noDatabase, config: { ...config, basePath: '' }, clock: systemClock, newId: newUuid });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
  }
}
