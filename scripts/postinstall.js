// `npm install`'s last step in a checkout: builds the two web apps (web/console/dist, web/portal/dist), the server (dist/),
// the client package (packages/client/dist) and the embedded database template. Plain JavaScript,
// so that it also runs where Node refuses TypeScript: a copy of this package installed into another
// project's node_modules skips the build (the server is run from a checkout; integrators install
// the client package, @dealflow/client, which needs no build step).
import { spawnSync } from 'node:child_process';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (root.split(sep).includes('node_modules')) {
  console.log('dealflow: installed as a dependency; nothing to build (integrators use @dealflow/client)');
  process.exit(0);
}

const steps = [
  [process.execPath, ['scripts/build-web.ts']],
  ['npm', ['run', '-s', 'build']],
  ['npm', ['run', '-s', 'build:client']],
  [process.execPath, ['scripts/cluster-template.ts']],
];
for (const [command, args] of steps) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
