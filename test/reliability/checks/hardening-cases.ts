// Targeted cases the hostile-input and access checks run besides their sweeps, one per hole a
// probe once found: a passkey registered twice, a statement nested a million deep or with text past
// its ISO 20022 maximum (hostile input); an erased investor's credentials, and a JWT whose `sub` is
// not its investor (access). Each refusal must be a 4xx problem document that changes nothing.
import { SignJWT } from 'jose';
import { SoftAuthenticator } from '../../support/webauthn.ts';
import { type Client, isProblem, type Received } from '../support/http.ts';
import { seedInvestor } from '../support/fixtures.ts';
import { changedTables, fingerprint, type FreshDatabase } from '../support/postgres.ts';

export interface CaseResult {
  failures: string[];
  figures: Record<string, number>;
}

/** Expects a refusal with `status` that writes nothing; returns the answer. */
async function refusedUnchanged(result: CaseResult, db: FreshDatabase, tables: string[], name: string, status: number, send: () => Promise<Received>) {
  const before = await fingerprint(db.pool, tables);
  const response = await send();
  if (response.status !== status) result.failures.push(`${name}: ${response.status || response.error}, expected ${status}: ${response.text.slice(0, 300)}`);
  else if (!isProblem(response)) result.failures.push(`${name}: not a problem document`);
  const changed = changedTables(before, await fingerprint(db.pool, tables));
  if (changed.length) result.failures.push(`${name}: the refusal changed ${changed.join(', ')}`);
  result.figures[name] = Math.round(response.ms);
  return response;
}

const invitationOf = async (client: Client, admin: string, investorUserId: string) => {
  const invited = await client.post('/investors/portal-invitations', { investorUserIds: [investorUserId] }, admin);
  return invited.status === 201 ? String(invited.json.invitations[0].url).split('#/welcome/')[1] : undefined;
};

/** Hostile input: passkeys registered twice, and statements past the bounds. Timings in ms. */
export async function hostileCases(client: Client, db: FreshDatabase, tables: string[], serviceUrl: string): Promise<CaseResult> {
  const result: CaseResult = { failures: [], figures: {} };
  const admin = db.adminToken;
  // The portal's origin is PUBLIC_URL's, by default http://localhost:<port>.
  const origin = `http://localhost:${new URL(serviceUrl).port}`;
  const portal = { origin };
  /** Asks registration options (a challenge is stored) and answers them; the POST is sent by the caller. */
  const answer = async (token: string, credentialId?: string) => {
    const options = await client.post('/portal/api/passkeys/registration-options', { invitation: token }, undefined, portal);
    const { response } = new SoftAuthenticator(origin).register(options.json.options, credentialId ? { credentialId } : {});
    return () => client.post('/portal/api/passkeys', { invitation: token, response }, undefined, portal);
  };
  const register = async (token: string) => (await answer(token))();
  const owner = await seedInvestor(client, admin, 41);
  const other = await seedInvestor(client, admin, 42);
  const ownerToken = await invitationOf(client, admin, owner);
  const first = ownerToken ? await register(ownerToken) : undefined;
  if (first?.status !== 201) result.failures.push(`passkey: the first registration got ${first?.status}: ${first?.text.slice(0, 200)}`);
  else {
    const taken: string = (await db.pool.query(`select credential_id from passkeys where subject_id = $1`, [owner])).rows[0]?.credential_id;
    const otherToken = await invitationOf(client, admin, other);
    const againToken = await invitationOf(client, admin, owner);
    if (otherToken) await refusedUnchanged(result, db, tables, "passkey: another investor's credential id (409)", 409, await answer(otherToken, taken));
    if (againToken) await refusedUnchanged(result, db, tables, 'passkey: re-registering its own credential id (409)', 409, await answer(againToken, taken));
  }

  const camt = (inTx: string) =>
    '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>' +
    `<GrpHdr><MsgId>REL-${Date.now()}</MsgId></GrpHdr><Stmt><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>` +
    '<Ntry><Amt Ccy="EUR">10.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-23</Dt></BookgDt><AcctSvcrRef>REL-1</AcctSvcrRef>' +
    `<NtryDtls><TxDtls>${inTx}</TxDtls></NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>`;
  const statement =
    (body: string, type = 'application/xml', query = '') =>
    () =>
      client.request({
        method: 'POST',
        path: `/payments/statements${query}`,
        body,
        headers: { authorization: `Bearer ${admin}`, 'content-type': type },
        timeoutMs: 30_000,
      });
  const nested = 1_000_000;
  const deep = await refusedUnchanged(
    result,
    db,
    tables,
    'statement: 1,000,000 nested elements, 7 MB (400 ms)',
    400,
    statement(camt('<a>'.repeat(nested) + '</a>'.repeat(nested))),
  );
  if (deep.status === 400 && !/deeper than 32 levels/.test(deep.json?.detail ?? ''))
    result.failures.push(`statement: the nesting refusal does not name the limit: ${deep.json?.detail}`);
  const name = (text: string) => camt(`<RltdPties><Dbtr><Pty><Nm>${text}</Nm></Pty></Dbtr></RltdPties>`);
  // Under IMPORT_JOB_THRESHOLD (8 MiB), so answered in the request rather than by an import job.
  await refusedUnchanged(result, db, tables, 'statement: a 7 MiB <Nm> (400 ms)', 400, statement(name('N'.repeat(7 * 1024 * 1024))));
  const long = await refusedUnchanged(result, db, tables, 'statement: a 141-character <Nm> (400 ms)', 400, statement(name('N'.repeat(141))));
  if (long.status === 400 && long.json?.errors?.[0]?.field !== 'Stmt[1]/Ntry[1]/TxDtls[1]/RltdPties/Dbtr/Pty/Nm')
    result.failures.push(`statement: the text refusal names ${JSON.stringify(long.json?.errors)}`);
  const csv = `date,amount,currency,reference,counterparty\n2026-11-23,10.00,EUR,thanks,${'C'.repeat(141)}\n`;
  await refusedUnchanged(
    result,
    db,
    tables,
    'statement: a CSV counterparty of 141 characters (400 ms)',
    400,
    statement(csv, 'text/csv', '?counterpartyColumn=counterparty'),
  );
  return result;
}

/** Access: an erased investor keeps no credential, and a JWT's investor is who made their writes. */
export async function accessCases(
  client: Client,
  db: FreshDatabase,
  tables: string[],
  jwtKey: Uint8Array,
  eventId: string | undefined,
  investorOfEvent: string,
): Promise<CaseResult> {
  const result: CaseResult = { failures: [], figures: {} };
  const admin = db.adminToken;
  const erased = await seedInvestor(client, admin, 43);
  const key = (await db.newToken('investor', erased)).token;
  if ((await client.get(`/investors/${erased}`, key)).status !== 200) result.failures.push('erasure: the investor key did not work before the erasure');
  const erasure = await client.post(`/investors/${erased}/erasure`, { overrideRetention: true, reason: 'reliability suite' }, admin);
  if (erasure.status !== 200) result.failures.push(`erasure: ${erasure.status} ${erasure.text.slice(0, 200)}`);
  await refusedUnchanged(result, db, tables, "erasure: the investor's API key afterwards (401)", 401, () => client.get(`/investors/${erased}`, key));
  await refusedUnchanged(result, db, tables, 'erasure: inviting the erased investor again (409)', 409, () =>
    client.post('/investors/portal-invitations', { investorUserIds: [erased] }, admin),
  );
  const live = Number((await db.pool.query(`select count(*) as n from api_tokens where investor_user_id = $1 and revoked_at is null`, [erased])).rows[0].n);
  if (live !== 0) result.failures.push(`erasure: ${live} live API key(s) of the erased investor`);
  const made = await db.newToken('investor', erased).then(
    () => 'made',
    (err: Error) => err.message,
  );
  if (made === 'made') result.failures.push('erasure: a new API key was made for the erased investor');

  // A JWT whose sub is an identity provider's id, bound to the investor: their write is theirs.
  if (!eventId) result.failures.push('attribution: no event to ask an edit of (fixtures incomplete)');
  else {
    const jwt = await new SignJWT({ sub: 'idp|reliability', role: 'investor', investor_user_id: investorOfEvent })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(jwtKey);
    const asked = await client.post('/deals/request-to-edit', { workflowEventId: eventId, type: 'Withdraw Investment', reason: 'attribution probe' }, jwt);
    if (asked.status !== 201) result.failures.push(`attribution: the investor's edit request got ${asked.status}: ${asked.text.slice(0, 200)}`);
    else {
      const by = (await db.pool.query(`select created_by_user_id from edit_requests where id = $1`, [asked.json.id])).rows[0]?.created_by_user_id;
      if (by !== investorOfEvent) result.failures.push(`attribution: the investor's request is recorded as made by ${by}, not ${investorOfEvent}`);
    }
  }
  result.figures['erasure and attribution cases'] = 5;
  return result;
}
