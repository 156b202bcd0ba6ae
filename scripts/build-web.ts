// Builds the console (web/) into web/dist; run by `npm install` / `npm ci` (postinstall)
// and by `npm run build:web`. Vite and React are devDependencies: on an install without them
// (`--omit=dev`) this says so and leaves the service to answer /console/ with a "not built" page.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../web/', import.meta.url));
let vite: typeof import('vite');
try {
  vite = await import('vite');
} catch {
  process.stdout.write('dealflow: vite is not installed (devDependencies omitted); the console at /console/ is not built.\n');
  process.exit(0);
}
const started = Date.now();
await vite.build({ root, configFile: `${root}vite.config.ts`, logLevel: 'warn' });
if (!existsSync(`${root}dist/index.html`)) throw new Error('vite build produced no web/dist/index.html');
process.stdout.write(`dealflow: console built into web/dist in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
