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
import { commitWatch } from './errors.ts';

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
    /** Where this connection stands in a commit's life (errors.ts, commitWatch). */
    readonly commits = commitWatch();
    override query(config: any, values?: any, callback?: any): any {
      const text: unknown = typeof config === 'string' ? config : config?.text;
      if (typeof text === 'string') onStatement?.(text);
      const name = typeof config === 'string' ? statementName(config) : undefined;
      const sent =
        name === undefined
          ? super.query(config, values, callback)
          : typeof values === 'function'
            ? super.query({ name, text: config }, values)
            : super.query({ name, text: config, values }, callback);
      // Kysely awaits the promise form; a callback form is left as it is.
      if (typeof text !== 'string' || !(sent instanceof Promise)) return sent;
      return this.commits.watch(
        text,
        sent.catch((err: unknown) => {
          // pg's read timeout leaves the statement running on the server: the connection would go
          // back to the pool still busy, and the next request's statement would wait behind it.
          // Ended, the pool drops it.
          if (err instanceof Error && err.message === 'Query read timeout') this.end().catch(() => undefined);
          throw err;
        }),
      );
    }
  }
  return Client as unknown as typeof pg.Client;
}
