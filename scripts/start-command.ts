// What `npm start` runs, read from package.json, so the benchmark and the doc test start the
// service exactly as a user does (the same V8 flags, the same built entry point) and cannot drift.
// The script starts with `exec`: npm runs it with `sh -c`, and the shell replaces itself with Node,
// so the signals npm forwards (SIGTERM from systemd or a container runtime) reach the service
// itself. Without it, the shell (dash does not exec a lone command) died of the SIGTERM and left
// the service running, holding its data folder.
import { readFileSync } from 'node:fs';

export interface StartCommand {
  /** The node flags before the entry point (`--max-semi-space-size=2`, …). */
  nodeFlags: string[];
  /** The entry point, relative to the project's root (`dist/cli/main.js`). */
  entry: string;
  /** What follows the entry point (`serve`). */
  args: string[];
}

export function startCommand(): StartCommand {
  const script: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts.start;
  const words = script.split(/\s+/).filter(Boolean);
  if (words[0] === 'exec') words.shift();
  if (words[0] !== 'node') throw new Error(`package.json's start script does not start with node: ${script}`);
  const at = words.findIndex((w, i) => i > 0 && !w.startsWith('-'));
  return { nodeFlags: words.slice(1, at), entry: words[at]!, args: words.slice(at + 1) };
}
