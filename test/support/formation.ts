// A throwaway pg_auto_failover formation for the failover test: a monitor, a primary and a
// synchronous secondary, each a `pg_autoctl … --run` child on a free loopback port with its data
// in one temp folder (as the `postgres` OS user when run as root: PostgreSQL and pg_autoctl refuse
// to run as root). The shared server is never touched. `destroy` kills every process and removes
// the folder; it also runs at exit, whatever happened.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './pg-server.ts';

/** The monitor's health checks, made fast so that a test sees a failover in seconds, not a minute. */
const MONITOR_SETTINGS: Record<string, number> = {
  'pgautofailover.health_check_period': 1000,
  'pgautofailover.health_check_timeout': 1000,
  'pgautofailover.health_check_max_retries': 1,
  'pgautofailover.health_check_retry_delay': 500,
  'pgautofailover.node_considered_unhealthy_timeout': 3000,
  // A primary that is gone cannot say it stopped: the monitor waits this long before promoting.
  'pgautofailover.primary_demote_timeout': 2000,
};

export interface FormationNode {
  name: string;
  port: number;
  pgdata: string;
}

export interface NodeState {
  name: string;
  port: number;
  reported: string;
  goal: string;
}

export interface Formation {
  /** Every data node, primary first: `postgres://postgres@h1,h2/dealflow?target_session_attrs=read-write`. */
  url: string;
  /** The URL of one node alone. */
  nodeUrl(node: FormationNode): string;
  nodes: FormationNode[];
  /** Each data node's state as the monitor sees it. */
  states(): Promise<NodeState[]>;
  /** The node the monitor has made primary (single, wait_primary or primary, reported and assigned). */
  primary(): Promise<FormationNode | undefined>;
  /** SIGKILL for a node's postmaster and its pg_autoctl (the machine is gone: nothing restarts it). */
  crash(node: FormationNode): void;
  /** The monitor's settings that decide how fast it promotes (for the report). */
  settings: Record<string, number>;
  /** The last lines a process wrote (for failure messages). */
  output(name: string): string;
  destroy(): void;
}

const bin = '/usr/lib/postgresql';

function pgBin(): string | undefined {
  for (const version of ['17', '16', '15', '14']) {
    const dir = join(bin, version, 'bin');
    if (existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return undefined;
}

function autoctl(): string | undefined {
  const dir = pgBin();
  for (const candidate of [dir && join(dir, 'pg_autoctl'), '/usr/bin/pg_autoctl']) if (candidate && existsSync(candidate)) return candidate;
  return undefined;
}

/** Undefined when a formation can be made here, else why not. */
export function formationUnavailable(): string | undefined {
  if (!pgBin()) return 'no PostgreSQL server binaries under /usr/lib/postgresql/*/bin';
  if (!autoctl()) return 'no pg_autoctl (apt-get install postgresql-15-auto-failover)';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and no postgres OS user';
  return undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const alive = new Set<Formation>();
process.on('exit', () => {
  for (const formation of alive) formation.destroy();
});

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, output: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(200);
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms${last ? ` (${last})` : ''}\n${output()}`);
}

/** `monitorDefaults`: leave the monitor's health checks at pg_auto_failover's defaults (slow to act). */
export async function createFormation(options: { monitorDefaults?: boolean } = {}): Promise<Formation> {
  const pgctl = join(pgBin()!, 'pg_ctl');
  const command = autoctl()!;
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'dealflow-formation-'));
  let ids: { uid: number; gid: number } | undefined;
  if (asRoot) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    ids = { uid: id('-u'), gid: id('-g') };
    chownSync(dir, ids.uid, ids.gid);
  }
  // pg_autoctl keeps its configuration and state under XDG folders: inside the temp folder.
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_DATA_HOME: join(dir, 'share'),
    PG_CONFIG: join(pgBin()!, 'pg_config'),
    PGHOST: '127.0.0.1',
  };
  const children = new Map<string, ChildProcess>();
  const lines = new Map<string, string[]>();
  const run = (name: string, args: string[]) => {
    // A process group of its own (detached): SIGKILL to the group takes pg_autoctl and its postgres.
    const child = spawn(command, args, { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], ...(ids ?? {}) });
    children.set(name, child);
    lines.set(name, []);
    const keep = (chunk: Buffer) => {
      const kept = lines.get(name)!;
      kept.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (kept.length > 400) kept.splice(0, kept.length - 200);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('error', (err) => lines.get(name)!.push(`spawn failed: ${err.message}`));
  };
  const output = (name: string) => (lines.get(name) ?? []).slice(-40).join('\n');
  const allOutput = () => [...lines.keys()].map((name) => `--- ${name}\n${output(name)}`).join('\n');
  const killGroup = (child: ChildProcess | undefined) => {
    if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  };
  const postmasterPid = (pgdata: string) => {
    try {
      return Number(readFileSync(join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  };
  const killPostmaster = (pgdata: string) => {
    const pid = postmasterPid(pgdata);
    if (!pid) return;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  };

  const [monitorPort, port1, port2] = [await freePort(), await freePort(), await freePort()];
  const monitorData = join(dir, 'monitor');
  const monitorUrl = `postgres://postgres@127.0.0.1:${monitorPort}/pg_auto_failover`;
  const nodes: FormationNode[] = [
    { name: 'node1', port: port1, pgdata: join(dir, 'node1') },
    { name: 'node2', port: port2, pgdata: join(dir, 'node2') },
  ];
  const nodeUrl = (node: FormationNode) => `postgres://postgres@127.0.0.1:${node.port}/dealflow`;
  const states = async () =>
    (
      await query<{ nodename: string; nodeport: number; reportedstate: string; goalstate: string }>(
        monitorUrl,
        'select nodename, nodeport, reportedstate::text, goalstate::text from pgautofailover.node order by nodeid',
      )
    ).map((r) => ({ name: r.nodename, port: r.nodeport, reported: r.reportedstate, goal: r.goalstate }));
  const writable = new Set(['single', 'wait_primary', 'primary']);

  let destroyed = false;
  const formation: Formation = {
    url: `postgres://postgres@${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}/dealflow?target_session_attrs=read-write`,
    nodeUrl,
    nodes,
    states,
    async primary() {
      const found = (await states()).find((s) => writable.has(s.reported) && s.reported === s.goal);
      return found && nodes.find((n) => n.name === found.name);
    },
    crash(node) {
      killGroup(children.get(node.name));
      killPostmaster(node.pgdata);
    },
    settings: options.monitorDefaults ? {} : MONITOR_SETTINGS,
    output,
    destroy() {
      if (destroyed) return;
      destroyed = true;
      alive.delete(formation);
      for (const child of children.values()) killGroup(child);
      for (const data of [monitorData, ...nodes.map((n) => n.pgdata)]) killPostmaster(data);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  alive.add(formation);

  try {
    run('monitor', [
      'create',
      'monitor',
      '--pgctl',
      pgctl,
      '--pgdata',
      monitorData,
      '--pgport',
      String(monitorPort),
      '--hostname',
      '127.0.0.1',
      '--auth',
      'trust',
      '--no-ssl',
      '--run',
    ]);
    await until(
      'the monitor start',
      90_000,
      async () => ((await query(monitorUrl, 'select 1 from pgautofailover.formation')).length > 0 ? true : undefined),
      allOutput,
    );
    if (!options.monitorDefaults) for (const [name, value] of Object.entries(MONITOR_SETTINGS)) await query(monitorUrl, `alter system set ${name} = ${value}`);
    await query(monitorUrl, 'select pg_reload_conf()');
    const create = (node: FormationNode) =>
      run(node.name, [
        'create',
        'postgres',
        '--pgctl',
        pgctl,
        '--pgdata',
        node.pgdata,
        '--pgport',
        String(node.port),
        '--hostname',
        '127.0.0.1',
        '--name',
        node.name,
        '--dbname',
        'dealflow',
        '--auth',
        'trust',
        '--no-ssl',
        '--monitor',
        `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover?sslmode=disable`,
        '--run',
      ]);
    create(nodes[0]!);
    await until(
      'the first node as single',
      120_000,
      async () => ((await states()).some((s) => s.name === 'node1' && s.reported === 'single') ? true : undefined),
      allOutput,
    );
    // pg_basebackup of the secondary waits for a checkpoint spread over minutes by default; a test
    // cluster need not spread it (nor sync to disk).
    await query(nodeUrl(nodes[0]!), 'alter system set checkpoint_completion_target = 0');
    await query(nodeUrl(nodes[0]!), 'alter system set fsync = off');
    await query(nodeUrl(nodes[0]!), 'select pg_reload_conf()');
    create(nodes[1]!);
    await until(
      'the formation (primary and secondary)',
      180_000,
      async () => {
        const s = await states();
        return s.some((n) => n.name === 'node1' && n.reported === 'primary' && n.goal === 'primary') &&
          s.some((n) => n.name === 'node2' && n.reported === 'secondary' && n.goal === 'secondary')
          ? true
          : undefined;
      },
      allOutput,
    );
    await query(nodeUrl(nodes[1]!), 'alter system set fsync = off');
    await query(nodeUrl(nodes[1]!), 'select pg_reload_conf()');
  } catch (err) {
    formation.destroy();
    throw err;
  }
  return formation;
}

/** Waits until the monitor names a primary other than `old`; the node, and when it was seen. */
export async function waitForPromotion(formation: Formation, old: FormationNode, timeoutMs: number): Promise<{ node: FormationNode; at: number }> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const primary = await formation.primary().catch(() => undefined);
    if (primary && primary.name !== old.name) return { node: primary, at: performance.now() };
    await sleep(100);
  }
  throw new Error(`no node was promoted within ${timeoutMs} ms: ${JSON.stringify(await formation.states().catch(() => []))}`);
}
