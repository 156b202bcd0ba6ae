// `npm run check:client` (CI): the client package as a registry would get it, checked by publint
// (package.json fields, exports, files) and @arethetypeswrong/cli (its types resolve under node10,
// node16 from ESM and bundler resolution; the package is ESM only, so node16 from CommonJS, which
// can only import() it, may: the one rule about that is ignored). Both pack the package themselves.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => `${root}node_modules/.bin/${name}`;
const checks: [string, string[]][] = [
  [bin('publint'), ['--strict', 'packages/client']],
  [bin('attw'), ['--pack', 'packages/client', '--ignore-rules', 'cjs-resolves-to-esm', '--format', 'table-flipped']],
];
let failed = false;
for (const [command, args] of checks) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } });
  if (result.status !== 0) {
    console.error(`FAIL: ${command.split('/').pop()} ${args.join(' ')} (exit ${result.status})`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
