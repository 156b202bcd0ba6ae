// Builds the two web apps: the console (web/console/) into web/console/dist and the investor portal
// (web/portal/) into web/portal/dist, both from the shared kit (web/kit/); run by `npm install` / `npm ci` (postinstall) and by `npm run build:web`.
// Vite and React are devDependencies: on an install without them (`--omit=dev`) this says so and
// leaves the service to answer /console/ and /portal/ with a "not built" page.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const apps = [
  { name: 'console', root: fileURLToPath(new URL('../web/console/', import.meta.url)), out: 'web/console/dist' },
  { name: 'investor portal', root: fileURLToPath(new URL('../web/portal/', import.meta.url)), out: 'web/portal/dist' },
];
let vite: typeof import('vite');
try {
  vite = await import('vite');
} catch {
  process.stdout.write('dealflow: vite is not installed (devDependencies omitted); the console at /console/ and the portal at /portal/ are not built.\n');
  process.exit(0);
}
for (const app of apps) {
  const started = Date.now();
  await vite.build({ root: app.root, configFile: `${app.root}vite.config.ts`, logLevel: 'warn' });
  if (!existsSync(`${app.root}dist/index.html`)) throw new Error(`vite build produced no ${app.out}/index.html`);
  process.stdout.write(`dealflow: ${app.name} built into ${app.out} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
