// Hostile input for the fuzzer: requests generated from each route's own schema, then pushed past
// it. Values of the wrong type, missing and extra members, huge and empty strings, NUL bytes,
// unusual Unicode, deep nesting, `__proto__` and `constructor` keys, numbers beyond a double's
// precision, invalid dates, bad ids in paths and queries, wrong content types and broken JSON;
// integers at the boundaries of int32, a double's exact range and int64 (and far past them) in every
// integer parameter, invalid UTF-8 in bodies and query strings, foreign charsets, and member names
// repeated in one object.
import fc from 'fast-check';
import { fillPath, type Hints, type Operation, type Schema, validArbitrary } from './openapi.ts';

/**
 * Integers where storage and arithmetic change: 2^31 (int4), 2^53 (exact doubles), 2^63 (int8),
 * 1e22 (printed as 1e+22 by JavaScript), each with a neighbour, and their negatives.
 */
export const boundaryIntegers = [
  '2147483647',
  '2147483648',
  '4294967296',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551616',
  '99999999999999999999',
  '10000000000000000000000',
  '1e22',
  '-2147483649',
  '-9007199254740993',
  '-9223372036854775809',
];

/** An integer parameter: an integer schema, or digits-only text (asset ids). */
export const isIntegerParam = (schema: Schema | undefined): boolean =>
  schema?.type === 'integer' ||
  (schema?.type === 'string' && typeof schema.pattern === 'string' && /^\^?\[1-9\]\[0-9\]|^\^\[0-9\]/.test(schema.pattern)) ||
  (Array.isArray(schema?.anyOf) && schema.anyOf.some(isIntegerParam));

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** What was done to it, for the report. */
  tags: string[];
}

export interface Tokens {
  admin: string;
  investor: string;
}

/** Percent-encodes every byte outside the unreserved set (lone surrogates become U+FFFD). */
const encode = (s: string) =>
  [...Buffer.from(s, 'utf8')]
    .map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

const oddStrings = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202e\u202dreversed',
  '\ufeffbom',
  '\u200b\u200c\u200d',
  'Ω≈ç√∫˜µ≤≥÷',
  '😀👩‍👩‍👧‍👦🏳️‍🌈',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚o̙̔ͮ',
  'ﷺ',
  '\\',
  '"',
  '../../../../etc/passwd',
  "'; drop table deals; --",
  "' or '1'='1",
  '{{7*7}}',
  '${7*7}',
  '<script>alert(1)</script>',
  '%00',
  '\r\nX-Injected: 1',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e400',
  '9007199254740993',
  '0x10',
  '2026-02-30',
  '2026-13-01',
  '0000-00-00',
  '2026-1-1',
  '99999-01-01',
  '2026-01-15T25:61:61Z',
  '2026-01-15T09:30:00.000+99:99',
  '-000001-01-01',
  'RF00 0000 0000 0000 000',
];

/** A JSON value that is wrong, odd or extreme for almost any field. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<unknown>(...oddStrings) },
  {
    weight: 4,
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      false,
      0,
      -0,
      -1,
      1.5,
      0.1,
      1e21,
      1e22,
      -1e-7,
      2 ** 31,
      2 ** 53,
      2 ** 63,
      -(2 ** 63),
      1e308,
      [],
      {},
      [null],
      [[]],
      { '': '' },
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })) },
  { weight: 2, arbitrary: fc.integer({ min: 129, max: 20_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 10, max: 400 }).map((d) => nested(d)) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom('a', 1, null), { minLength: 100, maxLength: 3000 }) },
);

const hostileParam: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...boundaryIntegers),
  // Invalid UTF-8 once percent-decoded: a lone continuation byte, a truncated sequence, an
  // overlong encoding, a surrogate, bytes that never occur.
  fc.constantFrom('%FF', '%80', '%C3', 'a%C3', '%E2%82', '%C0%AF', '%ED%A0%80', '%F8%88%80%80%80', '%FE%FF'),
  fc.constantFrom(
    '%00',
    'a%00b',
    '..',
    '%2e%2e',
    '%2F',
    'a%2Fb',
    '%',
    '%zz',
    '%E0%A4%A',
    '%ED%A0%80',
    '%EF%BF%BF',
    '%C0%AF',
    '+',
    '%20',
    '-1',
    '0',
    '1.5',
    '1e400',
    '9007199254740993',
    'NaN',
    'null',
    '%F0%9F%98%80',
    "'%20or%201=1--",
    '__proto__',
    'constructor',
    'x'.repeat(129),
    'x'.repeat(501),
    '00000000-0000-0000-0000-000000000000',
  ),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(encode),
  fc.integer({ min: -(2 ** 40), max: 2 ** 40 }).map(String),
);

const contentTypes = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  'application/json-patch+json',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=iso-8859-1',
  'application/json;charset="UTF-16LE"',
  'application/json; charset=windows-1252',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/problem+json',
  'application/vnd.api+json',
  '*/*',
  'application/json, text/plain',
  'application/jsonx',
];

/** Bodies that break JSON itself, or hide something in valid JSON text. */
function rawBodies(valid: string): fc.Arbitrary<{ body: string | Buffer; tag: string }> {
  const withMember = (member: string) => (valid.trim().startsWith('{') && valid.trim() !== '{}' ? valid.replace('{', `{${member},`) : `{${member}}`);
  return fc.oneof(
    fc.nat({ max: Math.max(0, valid.length - 1) }).map((n) => ({ body: valid.slice(0, n), tag: 'truncated JSON' })),
    fc.constantFrom(
      { body: valid.replace(/}\s*$/, ',}'), tag: 'trailing comma' },
      { body: valid.replace(/"/g, "'"), tag: 'single quotes' },
      { body: `\ufeff${valid}`, tag: 'BOM' },
      { body: `${valid}${valid}`, tag: 'two documents' },
      { body: withMember('"__proto__":{"isAdmin":true,"role":"admin"}'), tag: '__proto__ key' },
      { body: withMember('"constructor":{"prototype":{"isAdmin":true}}'), tag: 'constructor key' },
      { body: withMember('"prototype":{"x":1}'), tag: 'prototype key' },
      { body: withMember('"n":12345678901234567890'), tag: 'number beyond precision' },
      { body: withMember('"n":0.1000000000000000055511151231257827'), tag: 'number beyond precision' },
      { body: withMember('"n":1e400'), tag: 'number overflow' },
      { body: withMember('"n":-1e-400'), tag: 'number underflow' },
      { body: valid.replace(/:\s*(-?\d+(\.\d+)?)/, ':9007199254740993'), tag: 'number beyond precision' },
      { body: valid.replace(/:\s*(-?\d+(\.\d+)?)/, ':1e400'), tag: 'number overflow' },
      { body: valid.replace(/:\s*"[^"]*"/, ':NaN'), tag: 'NaN literal' },
      { body: valid.replace(/:\s*"[^"]*"/, ':"\\ud800"'), tag: 'lone surrogate escape' },
      { body: valid.replace(/:\s*"[^"]*"/, ':"\\u0000"'), tag: 'NUL escape' },
      { body: `${valid.replace(/}\s*$/, '')}, "dup": 1, "dup": {"x": 2}}`, tag: 'duplicate keys' },
      // A real member twice (last one different), and under an escaped spelling a proxy may not unescape.
      { body: duplicateFirstMember(valid, false), tag: 'duplicate member' },
      { body: duplicateFirstMember(valid, true), tag: 'duplicate member (escaped)' },
      {
        body: Buffer.concat([Buffer.from(valid.replace(/"[^"]*"\s*}\s*$/, '"')), Buffer.from([0xc3]), Buffer.from('"}')]),
        tag: 'invalid UTF-8 (truncated sequence)',
      },
      { body: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), tag: 'invalid UTF-8 (surrogate)' },
      { body: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]), tag: 'invalid UTF-8 (overlong)' },
      { body: Buffer.from(valid, 'latin1'), tag: 'latin-1 bytes' },
      { body: '', tag: 'empty body' },
      { body: ' \n\t ', tag: 'whitespace body' },
      { body: 'null', tag: 'null body' },
      { body: '[]', tag: 'array body' },
      { body: '"text"', tag: 'string body' },
      { body: '123', tag: 'number body' },
      { body: 'true', tag: 'boolean body' },
      { body: '{', tag: 'broken JSON' },
      { body: '}{', tag: 'broken JSON' },
      { body: 'undefined', tag: 'broken JSON' },
      { body: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"}')]), tag: 'invalid UTF-8' },
      { body: Buffer.from([0x00, 0x01, 0x02, 0x03]), tag: 'binary' },
    ),
    fc.integer({ min: 1000, max: 200_000 }).map((n) => ({ body: '['.repeat(n) + ']'.repeat(n), tag: 'deep nesting (raw)' })),
    fc.integer({ min: 1000, max: 100_000 }).map((n) => ({ body: `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`, tag: 'deep nesting (raw)' })),
    fc.integer({ min: 1000, max: 50_000 }).map((n) => ({ body: withMember(`"data":${'{"a":'.repeat(n)}1${'}'.repeat(n)}`), tag: 'deep nesting in a member' })),
  );
}

/** The valid body with its first member repeated at the end (a different value), optionally escaped. */
function duplicateFirstMember(valid: string, escaped: boolean): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(valid);
  } catch {
    return valid;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return valid;
  const first = Object.keys(parsed)[0];
  if (first === undefined) return '{"a":1,"a":2}';
  const name = escaped ? `"${[...first].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"` : JSON.stringify(first);
  return `${valid.replace(/}\s*$/, '')},${name}:${JSON.stringify((parsed as Record<string, unknown>)[first] === null ? 'x' : null)}}`;
}

type Path = (string | number)[];

function paths(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (prefix.length > 6) return out;
  if (Array.isArray(value)) value.forEach((v, i) => void paths(v, [...prefix, i], out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  return out;
}

function setAt(root: unknown, path: Path, change: (parent: any, key: string | number) => void): unknown {
  const copy = structuredClone(root);
  if (path.length === 0) return copy;
  let parent: any = copy;
  for (const key of path.slice(0, -1)) parent = parent[key];
  change(parent, path.at(-1)!);
  return copy;
}

/** Replaces, deletes or adds a member somewhere in a valid value. */
function mutate(valid: unknown): fc.Arbitrary<{ value: unknown; tag: string }> {
  const all = paths(valid);
  return fc
    .tuple(
      fc.nat({ max: all.length - 1 }),
      fc.constantFrom('replace', 'delete', 'add'),
      hostileValue,
      fc.constantFrom('extra', 'id', '__proto__', 'constructor', 'toString', 'hasOwnProperty', '', ' ', 'a'.repeat(300), 'ü'),
    )
    .map(([index, how, hostile, extraKey]) => {
      const path = all[index]!;
      if (how === 'replace')
        return path.length === 0
          ? { value: hostile, tag: 'body replaced' }
          : { value: setAt(valid, path, (p, k) => (p[k] = hostile)), tag: `${path.join('.')} replaced` };
      if (how === 'delete' && path.length > 0)
        return { value: setAt(valid, path, (p, k) => (Array.isArray(p) ? p.splice(Number(k), 1) : delete p[k])), tag: `${path.join('.')} deleted` };
      // add: a member the schema does not know, on the object at (or holding) this path
      const target = path.filter((_, i) => i < path.length);
      return {
        value: setAt(valid, target, (p, k) => {
          const holder = p[k] && typeof p[k] === 'object' && !Array.isArray(p[k]) ? p[k] : p;
          if (holder && typeof holder === 'object' && !Array.isArray(holder))
            Object.defineProperty(holder, extraKey, { value: hostile, enumerable: true, writable: true, configurable: true });
        }),
        tag: `extra member ${JSON.stringify(extraKey).slice(0, 20)}`,
      };
    });
}

export function requestArbitrary(operations: Operation[], hints: Hints, tokens: Tokens): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...operations).chain((op) => {
    const pathValues = fc.tuple(
      ...op.pathParams.map((p) =>
        fc.oneof(
          { weight: 6, arbitrary: validArbitrary(p.schema, hints, p.name).map((v) => ({ v: encode(String(v)), hostile: false })) },
          { weight: 2, arbitrary: hostileParam.map((v) => ({ v, hostile: true })) },
          ...(isIntegerParam(p.schema) ? [{ weight: 2, arbitrary: fc.constantFrom(...boundaryIntegers).map((v) => ({ v, hostile: true })) }] : []),
        ),
      ),
    );
    const queryValues = fc.tuple(
      ...op.queryParams.map((q) =>
        fc.oneof(
          { weight: 3, arbitrary: fc.constant(undefined) },
          { weight: 4, arbitrary: validArbitrary(q.schema, hints, q.name).map((v) => `${q.name}=${encode(String(v))}`) },
          { weight: 2, arbitrary: hostileParam.map((v) => `${q.name}=${v}`) },
          ...(isIntegerParam(q.schema) ? [{ weight: 2, arbitrary: fc.constantFrom(...boundaryIntegers).map((v) => `${q.name}=${v}`) }] : []),
          { weight: 1, arbitrary: fc.constantFrom(`${q.name}=1&${q.name}=2`, `${q.name}[]=1`, `${q.name}[a]=1`, `${q.name}`, `${q.name}=`) },
        ),
      ),
    );
    const extraQuery = fc.oneof(
      { weight: 8, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom('zzz=1', '__proto__[x]=1', 'constructor[prototype][x]=1', '%00=%00', `${'a'.repeat(3000)}=1`) },
    );
    const validBody = op.body ? validArbitrary(op.body, hints) : fc.constant(undefined);
    const body = validBody.chain((valid) => {
      const text = valid === undefined ? '' : JSON.stringify(valid);
      const options: fc.WeightedArbitrary<{ body?: string | Buffer; tag: string }>[] = [
        { weight: op.body ? 3 : 8, arbitrary: fc.constant(valid === undefined ? { tag: 'no body' } : { body: text, tag: 'schema-valid body' }) },
        { weight: op.body ? 6 : 1, arbitrary: mutate(valid ?? {}).map(({ value, tag }) => ({ body: JSON.stringify(value) ?? 'undefined', tag })) },
        { weight: 3, arbitrary: rawBodies(text || '{}') },
      ];
      if (op.body) options.push({ weight: 1, arbitrary: fc.constant({ tag: 'body missing' }) });
      return fc.oneof(...options);
    });
    const contentType = fc.oneof(
      { weight: 10, arbitrary: fc.constant('application/json') },
      { weight: 2, arbitrary: fc.constantFrom(...contentTypes) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    );
    const token = fc.oneof(
      { weight: 12, arbitrary: fc.constant({ authorization: `Bearer ${tokens.admin}`, tag: '' }) },
      { weight: 2, arbitrary: fc.constant({ authorization: `Bearer ${tokens.investor}`, tag: 'investor token' }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          { authorization: undefined, tag: 'no token' },
          { authorization: 'Bearer a.b.c', tag: 'garbage JWT' },
          { authorization: `Bearer ${'A'.repeat(8000)}`, tag: 'huge token' },
          { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4Iiwicm9sZSI6ImFkbWluIn0.', tag: 'alg none JWT' },
        ),
      },
    );
    const idempotencyKey =
      op.method === 'POST'
        ? fc.oneof(
            { weight: 6, arbitrary: fc.constant(undefined) },
            { weight: 2, arbitrary: fc.uuid() },
            { weight: 1, arbitrary: fc.constantFrom('', ' ', 'k'.repeat(256), 'k'.repeat(10_000), 'ü', '\t') },
          )
        : fc.constant(undefined);
    return fc.record({ pathValues, queryValues, extraQuery, body, contentType, token, idempotencyKey }).map((r) => {
      const values: Record<string, string> = {};
      op.pathParams.forEach((p, i) => {
        values[p.name] = r.pathValues[i]!.v;
      });
      const query = [...r.queryValues.filter((q): q is string => q !== undefined), ...(r.extraQuery ? [r.extraQuery] : [])];
      const headers: Record<string, string> = {};
      if (r.token.authorization) headers.authorization = r.token.authorization;
      if (r.body.body !== undefined && r.contentType) headers['content-type'] = r.contentType;
      if (r.idempotencyKey !== undefined) headers['idempotency-key'] = Buffer.from(r.idempotencyKey, 'utf8').toString('latin1');
      const tags = [
        op.key,
        r.body.tag,
        ...(r.pathValues.some((p) => p.hostile) ? ['hostile path'] : []),
        ...(r.token.tag ? [r.token.tag] : []),
        ...(r.contentType !== 'application/json' && r.body.body !== undefined ? [`content-type ${r.contentType ?? 'none'}`] : []),
      ];
      return {
        method: op.method,
        path: fillPath(op.path, values) + (query.length ? `?${query.join('&')}` : ''),
        headers,
        ...(r.body.body !== undefined ? { body: r.body.body } : {}),
        tags,
      };
    });
  });
}
