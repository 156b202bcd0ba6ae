// Run by `npm install` (postinstall): makes the embedded database's cluster template once, so the
// first start and a first CLI command on a new data folder copy it instead of running initdb
// (src/store/pglite-settings.ts, clusterTemplate). Only a cache: a failure is reported and the
// install goes on (initdb then runs at the first start, as it would without the template).
import { prepareClusterTemplate } from '../src/store/pglite-settings.ts';

const started = Date.now();
try {
  const template = await prepareClusterTemplate();
  if (template) process.stdout.write(`dealflow: embedded database template ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
} catch (err) {
  process.stdout.write(`dealflow: no embedded database template (${(err as Error).message}); the first start will create the database itself\n`);
}
