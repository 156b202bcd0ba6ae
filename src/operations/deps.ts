// What every operation needs from outside: the database, the time, new ids. Injected so tests can
// fix them; nothing else reaches for globals.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.ts';

export type Clock = () => Date;

export interface Deps {
  db: Kysely<DB>;
  clock: Clock;
  newId: () => string;
}

export const systemClock: Clock = () => new Date();
export const newUuid = () => randomUUID();
