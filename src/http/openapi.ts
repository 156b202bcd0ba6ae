// The OpenAPI document, generated from the route schemas (committed as openapi.json; a test fails
// when the two drift).
import type { Config } from '../config.ts';
import { newUuid, systemClock } from '../operations/deps.ts';
import { openDatabase } from '../store/database.ts';
import { buildApp } from './app.ts';

export async function generateOpenApi(config: Config): Promise<unknown> {
  // Routes need a database handle to be built, never to be described: an empty in-memory one serves.
  const database = await openDatabase({ ...config, databaseUrl: undefined, dataDir: 'memory://' });
  try {
    const app = await buildApp({ db: database.db, config: { ...config, basePath: '' }, clock: systemClock, newId: newUuid });
    await app.ready();
    const document = app.swagger();
    await app.close();
    return document;
  } finally {
    await database.close();
  }
}
