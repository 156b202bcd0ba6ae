// `dealflow sanctions load FILE`: loads an official sanctions list as a new version (the same
// operation as the admin upload), on the database the service uses, and screens every investor
// against it. `dealflow sanctions screen` screens every investor again.
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { Principal } from '../domain/principal.ts';
import { type Command, out, withDatabase } from './command.ts';

export const sanctionsCommand: Command = {
  summary: 'load a sanctions list (EU, UK, OFAC or UN file) or screen every investor again',
  help: `dealflow sanctions load <FILE>
dealflow sanctions screen

load: reads the EU consolidated financial sanctions list (XML), the UK consolidated list (OFSI CSV),
OFAC's SDN list (sdn.xml) or the UN consolidated list (XML), telling them apart by their content;
stores it as a new version of that list (audited), and screens every investor against the newest
version of each list. Prints the version id, the entries read and the new hits.
screen: screens every investor against the newest version of each list.`,
  options: {},
  resolvesPaths: true,
  async run(config, _values, positionals) {
    const [action, file] = positionals;
    const valid = (action === 'load' && file !== undefined && positionals.length === 2) || (action === 'screen' && positionals.length === 1);
    if (!valid) {
      process.stderr.write(`${this.help}\n`);
      return 1;
    }
    const [{ loadSanctionsList, screenInvestors }, { newUuid, systemClock }] = await Promise.all([
      import('../operations/sanctions.ts'),
      import('../operations/deps.ts'),
    ]);
    const principal: Principal = { userId: 'cli', role: 'admin', tokenKey: 'cli' };
    await withDatabase(config, async ({ db }) => {
      const deps = { db, clock: systemClock, newId: newUuid };
      if (action === 'screen') {
        out(`new hits: ${await screenInvestors(deps)}`);
        return;
      }
      const load = await loadSanctionsList(deps, principal, path.basename(file!), createReadStream(file!));
      out(`loaded ${load.source} list version ${load.versionId}: ${load.entryCount} entries; new hits: ${load.newHits}`);
    });
  },
};
