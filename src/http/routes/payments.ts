// Reconciliation (admin): deal payment settings, statement imports, the queue of lines and staff
// decisions on them, and the bookings made (or queued) on completion.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { paymentLineStatuses, paymentOutcomes } from '../../domain/payment-line.ts';
import { defaultCsvColumns } from '../../domain/statement-csv.ts';
import { listJourneyBookings } from '../../operations/journey-bookings.ts';
import { getPaymentSettings, putPaymentSettings } from '../../operations/payment-settings.ts';
import { getPaymentLine, listPaymentLines } from '../../operations/payment-queue.ts';
import { decidePaymentLine } from '../../operations/payment-line-decisions.ts';
import { findLineCandidates } from '../../operations/payment-proposals.ts';
import { importStatement, type StatementInput } from '../../operations/statement-import.ts';
import { startImportJob } from '../../operations/import-jobs.ts';
import { InputCheck, MAX_RECORD_BYTES } from '../../operations/import-readers/limits.ts';
import type { Api, AppContext } from '../context.ts';
import { Accepted, acceptJob, holdConnection, prefersAsync } from './import-jobs.ts';
import { principalOf } from '../auth.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import { Approval } from '../schemas/approvals.ts';
import { answer, writeOf } from '../writes.ts';
import { ExternalId, Page, PageQuery, StrictObject } from '../schemas/common.ts';
import {
  JourneyBooking,
  PaymentLine,
  PaymentLineWithDecisions,
  PaymentSettings,
  PaymentSettingsBody,
  Proposal,
  Share,
  StatementImport,
  StatementQuery,
} from '../schemas/payments.ts';

const DealParams = Type.Object({ dealId: ExternalId });
const LineParams = Type.Object({ lineId: Type.String({ format: 'uuid' }) });
const literals = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));

const HELD =
  'The line with its decisions. With the four-eyes rule of a deal it concerns on (PUT /deals/deal/{dealId}/four-eyes): 202 with the proposal, nothing applied, until a second person approves it.';

/** Statements use more concurrent connections than a request normally does, never the whole pool. */

export async function paymentRoutes(app: Api, ctx: AppContext) {
  app.put(
    '/deals/deal/:dealId/payment-settings',
    {
      schema: {
        tags: ['reconciliation'],
        summary: "Set a deal's payment settings: payment step, fields, asset and price booked on completion",
        params: DealParams,
        body: PaymentSettingsBody,
        description:
          "201 created, 200 replaced. Replacing or removing the payee's IBAN is four-eyes: 202 with the proposal, nothing changed, until a second admin approves it (POST /approvals/{proposalId}/approve).",
        headers: IdempotencyHeaders,
        response: { 200: PaymentSettings, 201: PaymentSettings, 202: Approval },
      },
    },
    async (request, reply) => answer(reply, await putPaymentSettings(ctx, writeOf(ctx, request), request.params.dealId, request.body)),
  );

  app.get(
    '/deals/deal/:dealId/payment-settings',
    {
      schema: {
        tags: ['reconciliation'],
        summary: "A deal's payment settings (defaults when never set)",
        params: DealParams,
        response: { 200: PaymentSettings },
      },
    },
    async (request) => getPaymentSettings(ctx, request.params.dealId),
  );

  app.get(
    '/payments/lines',
    {
      schema: {
        tags: ['reconciliation'],
        summary: 'Statement lines (the reconciliation queue with status=queued), in import order',
        querystring: Type.Object(
          {
            status: Type.Optional(literals([...paymentLineStatuses, 'pending'] as const)),
            outcome: Type.Optional(literals(paymentOutcomes)),
            dealId: Type.Optional(ExternalId),
            statementId: Type.Optional(Type.String({ format: 'uuid' })),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(PaymentLine) },
      },
    },
    async (request) => {
      const { limit = 20, page = 1, ...filter } = request.query;
      return listPaymentLines(ctx, filter, { limit, page });
    },
  );

  app.get(
    '/payments/lines/:lineId',
    { schema: { tags: ['reconciliation'], summary: 'One line with every decision about it', params: LineParams, response: { 200: PaymentLineWithDecisions } } },
    async (request) => getPaymentLine(ctx, request.params.lineId),
  );

  app.get(
    '/payments/lines/:lineId/candidates',
    {
      schema: {
        tags: ['reconciliation'],
        summary: 'The investors a queued line may be given to, likeliest first, with the reasons (by name, e-mail or organisation with query)',
        description:
          'Without `query`: the proposals of the line (investors who still owe in its deal, else in the deals of its statement, else in every deal ' +
          'with payment settings), each with at least one reason: the amount equals what they still owe, the payer name is close to theirs or their ' +
          "organisation's, the reference quoted is one or two characters from theirs. With `query`: investors of any deal whose name, e-mail or " +
          'organisation contains it, ranked by the same reasons (possibly none).',
        params: LineParams,
        querystring: Type.Object(
          {
            query: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ output: Type.Array(Proposal) }, { title: 'PaymentLineCandidates' }) },
      },
    },
    async (request) => findLineCandidates(ctx, request.params.lineId, request.query.query, request.query.limit ?? 10),
  );

  app.post(
    '/payments/lines/:lineId/assign',
    {
      schema: {
        tags: ['reconciliation'],
        summary: 'Assign a queued credit to an investor of a deal (the investor moves when their total reaches the commitment)',
        params: LineParams,
        description: HELD,
        headers: IdempotencyHeaders,
        body: StrictObject({ dealId: ExternalId, investorUserId: ExternalId }),
        response: { 200: PaymentLineWithDecisions, 202: Approval },
      },
    },
    async (request, reply) =>
      answer(reply, await decidePaymentLine(ctx, writeOf(ctx, request), request.params.lineId, { action: 'payment-assign', ...request.body })),
  );

  app.post(
    '/payments/lines/:lineId/split',
    {
      schema: {
        tags: ['reconciliation'],
        summary: 'Split a queued credit across investors (shares add up to the line)',
        params: LineParams,
        description: HELD,
        headers: IdempotencyHeaders,
        body: StrictObject({ shares: Type.Array(Share, { minItems: 1, maxItems: 100 }) }),
        response: { 200: PaymentLineWithDecisions, 202: Approval },
      },
    },
    async (request, reply) =>
      answer(reply, await decidePaymentLine(ctx, writeOf(ctx, request), request.params.lineId, { action: 'payment-split', ...request.body })),
  );

  app.post(
    '/payments/lines/:lineId/dismiss',
    {
      schema: {
        tags: ['reconciliation'],
        summary: 'Take a line out of the queue, with a reason (its money is taken back from any investor)',
        params: LineParams,
        description: HELD,
        headers: IdempotencyHeaders,
        body: StrictObject({ reason: Type.String({ minLength: 1, maxLength: 2000 }) }),
        response: { 200: PaymentLineWithDecisions, 202: Approval },
      },
    },
    async (request, reply) =>
      answer(reply, await decidePaymentLine(ctx, writeOf(ctx, request), request.params.lineId, { action: 'payment-dismiss', ...request.body })),
  );

  app.get(
    '/payments/bookings',
    {
      schema: {
        tags: ['reconciliation'],
        summary: 'Subscriptions booked on completion, and bookings queued for staff (with the reason)',
        querystring: Type.Object(
          { status: Type.Optional(literals(['booked', 'queued'] as const)), dealId: Type.Optional(ExternalId), ...PageQuery },
          { additionalProperties: false },
        ),
        response: { 200: Page(JourneyBooking) },
      },
    },
    async (request) => {
      const { limit = 20, page = 1, ...filter } = request.query;
      return listJourneyBookings(ctx, filter, { limit, page });
    },
  );

  // The statement import takes raw XML or CSV bodies, up to STATEMENT_BODY_LIMIT: parsers of its
  // own, in a scope of its own, so every other route still accepts JSON only.
  await app.register(async (scope: Api) => {
    // Bytes, not text: a statement that is not UTF-8 is refused (checkStatement), not read as U+FFFD.
    for (const type of ['application/xml', 'text/xml', 'text/csv']) {
      scope.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: ctx.config.statementBodyLimit }, (_request, body, done) => done(null, body));
    }
    scope.setErrorHandler((error) => {
      if ((error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        throw new AppError('payload-too-large', `The statement is larger than ${ctx.config.statementBodyLimit} bytes (STATEMENT_BODY_LIMIT)`);
      }
      throw error;
    });
    scope.post(
      '/payments/statements',
      {
        bodyLimit: ctx.config.statementBodyLimit,
        schema: {
          tags: ['reconciliation'],
          summary: 'Import a bank statement: ISO 20022 camt.053/camt.054 (application/xml) or CSV (text/csv, columns named in the query)',
          description:
            'camt.053 and camt.054, versions 001.02 to 001.08 (read from the namespace). CSV columns default to ' +
            `${Object.entries(defaultCsvColumns)
              .map(([k, v]) => `${k}=${v}`)
              .join(', ')}. 201 with the import, or 200 when this file was imported ` +
            'before (nothing changes). Above IMPORT_JOB_THRESHOLD bytes (8 MiB by default), or with Prefer: respond-async: 202 with the Location of an ' +
            'import job (GET /imports/jobs/{jobId}) that reports progress, then this outcome. Malformed XML, a DOCTYPE or entity declaration, bytes ' +
            'that are not UTF-8, or a bad line: 400; a CSV record over 1 MiB or a body larger than STATEMENT_BODY_LIMIT: 413.',
          querystring: StatementQuery,
          response: { 200: StatementImport, 201: StatementImport, 202: Accepted },
        },
      },
      async (request, reply) => {
        const { input, bytes } = statementOf(request);
        return sendStatementImport(ctx, request, reply, input, bytes);
      },
    );
  });
}

type StatementRequest = FastifyRequest<{ Querystring: Static<typeof StatementQuery> }>;

/** The statement a request sends: its bytes checked (UTF-8, a CSV record at most MAX_RECORD_BYTES) and read as the query says. */
function statementOf(request: StatementRequest): { input: StatementInput; bytes: Buffer } {
  const type = String(request.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (!Buffer.isBuffer(request.body)) throw new AppError('unsupported-media-type', 'Send the statement as application/xml (camt.053/camt.054) or text/csv');
  const bytes = request.body;
  const csv = type === 'text/csv';
  // UTF-8 only, and a CSV record at most MAX_RECORD_BYTES (a whole camt document may be one line).
  const check = new InputCheck({ quoted: csv, header: csv, ...(csv ? { maxRecordBytes: MAX_RECORD_BYTES } : {}), what: 'The statement' });
  check.push(bytes);
  check.end();
  const text = bytes.toString('utf8');
  const q = request.query;
  const input: StatementInput = csv
    ? {
        kind: 'csv',
        text,
        csv: {
          columns: {
            date: q.dateColumn ?? defaultCsvColumns.date,
            amount: q.amountColumn ?? defaultCsvColumns.amount,
            currency: q.currencyColumn ?? defaultCsvColumns.currency,
            reference: q.referenceColumn ?? defaultCsvColumns.reference,
            counterparty: q.counterpartyColumn,
            counterpartyAccount: q.counterpartyAccountColumn,
            bankReference: q.bankReferenceColumn,
            valueDate: q.valueDateColumn,
          },
          delimiter: q.delimiter === 'semicolon' ? ';' : q.delimiter === 'tab' ? '\t' : ',',
          decimalSeparator: q.decimalSeparator === 'comma' ? ',' : '.',
          account: q.account,
        },
      }
    : { kind: 'xml', text };
  return { input, bytes };
}

/** Imports the statement: as an import job (202) when large or asked for, else at once (201, or 200 for a file seen before). */
async function sendStatementImport(ctx: AppContext, request: StatementRequest, reply: FastifyReply, input: StatementInput, bytes: Buffer) {
  const principal = principalOf(request);
  if (bytes.length > ctx.config.importJobThreshold || prefersAsync(request)) {
    const job = await startImportJob(ctx, principal, { kind: 'statement', dryRun: false, bytes: bytes.length }, async (progress) => ({
      outcome: await importStatement(ctx, principal, input, { onProgress: progress }),
    }));
    return acceptJob(request, reply, ctx, job);
  }
  holdConnection(request);
  const result = await importStatement(ctx, principal, input);
  return reply.code(result.duplicate ? 200 : 201).send(result);
}
