// The benchmark's own database, made fresh for each run and removed after it, so a run never touches
// other data: a new PostgreSQL database beside the one DATABASE_URL names, or a temporary PGlite
// folder when DATABASE_URL is unset.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { type Database, openDatabase } from '../src/store/database.ts';
import type { DatabaseEnv } from './processes.ts';

export interface BenchDatabase {
  kind: 'postgres' | 'pglite';
  /** What the children get in their environment. */
  env: DatabaseEnv;
  /** A human label: the database name or the folder. */
  label: string;
  /** The PostgreSQL database's name (its backends' CPU is counted per request); undefined for PGlite. */
  name?: string;
  /**
   * Opens it in the bench process (PGlite: only while no child has it open); `timeoutMs` for long
   * bulk statements; `onStatement` sees every statement sent (PostgreSQL only).
   */
  open(options?: { timeoutMs?: number; onStatement?: (text: string) => void }): Promise<Database>;
  drop(): Promise<void>;
}

export async function createBenchDatabase(databaseUrl: string | undefined): Promise<BenchDatabase> {
  const base = loadConfig({});
  if (!databaseUrl) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dealflow-bench-'));
    return {
      kind: 'pglite',
      env: { DATA_DIR: dataDir },
      label: `PGlite in ${dataDir}`,
      open: (options) => openDatabase({ ...base, dataDir, ...(options?.timeoutMs ? { databaseTimeoutMs: options.timeoutMs } : {}) }),
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `dealflow_bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  const benchUrl = url.toString();
  return {
    kind: 'postgres',
    env: { DATABASE_URL: benchUrl },
    label: `PostgreSQL database ${name}`,
    name,
    open: (options) =>
      openDatabase(
        { ...base, databaseUrl: benchUrl, ...(options?.timeoutMs ? { databaseTimeoutMs: options.timeoutMs } : {}) },
        options?.onStatement ? { onStatement: options.onStatement } : {},
      ),
    async drop() {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
