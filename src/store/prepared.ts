// Named prepared statements for the hot queries, and a hook that sees every statement sent.
//
// Kysely hands `pg` plain text, so every statement is parsed and planned again on every call. A
// statement whose text starts with `prepared('name')` is sent by `pg` as a named prepared statement
// instead (`{ name, text, values }`): PostgreSQL parses it once per connection and may keep its
// plan. The name carries a hash of the text, so two texts can never share one name (pg refuses
// that). PGlite runs the same text as a plain statement: the marker is only a comment.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';

const MARK = '/* prepared:';

/** Put first in a hot statement's text (and never in a `select *`: a changed table would break its cached plan). */
export const prepared = (name: string) => sql.raw(`${MARK}${name} */ `);

const names = new Map<string, string>();

function statementName(text: string): string | undefined {
  if (!text.startsWith(MARK)) return undefined;
  let name = names.get(text);
  if (name === undefined) {
    const label = text.slice(MARK.length, text.indexOf(' */'));
    name = `${label}_${createHash('sha1').update(text).digest('hex').slice(0, 12)}`;
    // The texts are the few written with the marker: this map stays as small as their number.
    names.set(text, name);
  }
  return name;
}

/**
 * The `pg.Client` the pool makes: it names the marked statements, and reports every statement's
 * text to `onStatement` (BEGIN and COMMIT included), which the tests use to count round trips.
 */
export function clientClass(onStatement?: (text: string) => void): typeof pg.Client {
  class Client extends pg.Client {
    override query(config: any, values?: any, callback?: any): any {
      const text: unknown = typeof config === 'string' ? config : config?.text;
      if (typeof text === 'string') onStatement?.(text);
      const name = typeof config === 'string' ? statementName(config) : undefined;
      if (name === undefined) return super.query(config, values, callback);
      if (typeof values === 'function') return super.query({ name, text: config }, values);
      return super.query({ name, text: config, values }, callback);
    }
  }
  return Client as unknown as typeof pg.Client;
}
