// An integrator's program against @dealflow/client, as installed from its tarball: it sets up a deal
// whose commitment step has a webhook trigger, uploads investors (a string, a Blob and a stream),
// reads a typed 422, tells a dry run from a move, moves an investor, and verifies the webhook the
// service then delivers to its own receiver. No casts: test/client/packed-package.test.ts
// typechecks it with --strict under nodenext and bundler resolution, then runs it on Node 20 and 24.
// It prints one JSON line of what it saw.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createDealflowClient, isProblem, verifyWebhook, WebhookVerificationError } from '@dealflow/client';

const baseUrl = process.env.BASE ?? 'http://127.0.0.1:3000';
const token = process.env.TOKEN ?? '';
const run = process.env.RUN ?? 'local';
const dealId = `pkg-${run}`;
const investorUserId = `pkg-inv-${run}`;
const step = (name: string) => `${dealId}.${name}`;

const deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];
const receiver = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => (body += chunk));
  request.on('end', () => {
    deliveries.push({ headers: request.headers, body });
    response.end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const address = receiver.address();
const port = typeof address === 'object' && address !== null ? address.port : 0;
const secret = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;

const dealflow = createDealflowClient({ baseUrl, token });

await dealflow.PUT('/deals/deal/{dealId}', { params: { path: { dealId } }, body: { name: 'Packaged client', currency: 'EUR' } });
const workflow = await dealflow.PUT('/deals/deal/{dealId}/workflow', {
  params: { path: { dealId } },
  body: {
    label: 'Packaged',
    description: '',
    investorEngagementEnabled: true,
    steps: [
      {
        id: step('commitment'),
        label: 'Commitment',
        type: 'default',
        stepFields: [{ fieldKey: 'committed_amount', required: true, kind: 'amount' }],
        triggers: [{ kind: 'webhook', url: `http://127.0.0.1:${port}/hook`, secret, events: ['journey.step-entered'] }],
      },
      { id: step('complete'), label: 'Complete', type: 'complete', stepFields: [] },
    ],
    links: [{ fromStepId: step('commitment'), toStepId: step('complete') }],
  },
});
// A workflow change may be held for a second person (202, a proposal): only the workflow itself has steps.
const stepTypes = workflow.data && 'steps' in workflow.data ? workflow.data.steps.map((s) => s.type) : [];

// One investor, uploaded three ways: as a string, then the same file as a Blob and as a stream.
const csv =
  'id,remoteId,dataSource,kycCheckLevel,guid,userType,status,contact.forename,contact.surname,contact.email,username,name,fullName,tfaEnabled,compliance,classifications\n' +
  `${investorUserId},crm-${run},crm,2,6f1c2a3e-0000-4000-8000-000000000001,1,active,Ada,Lovelace,ada-${run}@example.com,ada-${run},Ada Lovelace,Ada Lovelace,true,approved,\n`;
const uploads: string[] = [];
for (const body of [csv, new Blob([csv], { type: 'text/csv' }), new Blob([csv]).stream()]) {
  const imported = await dealflow.POST('/investors/import', { body, headers: { 'content-type': 'text/csv' } });
  const outcome = imported.data && 'rows' in imported.data ? imported.data.rows[0]?.outcome : undefined;
  uploads.push(outcome ?? `failed ${imported.response.status}`);
}

// A move without its required field: the typed 422.
const refused = await dealflow.POST('/deals/deal/{dealId}/jump-to-step', {
  params: { path: { dealId } },
  body: { investorUserId, targetStepId: step('commitment'), data: {} },
});
let status = 0;
let requestIdMatches = false;
let missingFields: string[] = [];
if (refused.error) {
  const n: number = refused.error.status;
  status = n;
  requestIdMatches = refused.error.requestId === refused.response.headers.get('x-request-id');
  if (isProblem(refused.error, 'unprocessable')) missingFields = refused.error.missingFields ?? [];
}

// The dry run and the move answer the same operation: `dryRun: true` tells them apart.
const move = { investorUserId, targetStepId: step('commitment'), data: { committed_amount: '25000.00' } };
const dry = await dealflow.POST('/deals/deal/{dealId}/jump-to-step', { params: { path: { dealId }, query: { dryRun: true } }, body: move });
const dryRun = dry.data !== undefined && 'dryRun' in dry.data && dry.data.dryRun;
const moved = await dealflow.POST('/deals/deal/{dealId}/jump-to-step', { params: { path: { dealId } }, body: move });
const movedTo = moved.data !== undefined && !('dryRun' in moved.data) ? moved.data.toStepId : undefined;

// The service delivers journey.step-entered to the receiver above: verify it as received.
const deadline = Date.now() + 20_000;
while (deliveries.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
const delivery = deliveries[0];
let webhook: { type: string; dealId: string | null; verified: boolean; forgedRefused: boolean } | undefined;
if (delivery) {
  const event = await verifyWebhook(secret, delivery.headers, delivery.body);
  let forgedRefused = false;
  try {
    await verifyWebhook(secret, delivery.headers, delivery.body.replace('25000.00', '99999.00'));
  } catch (err) {
    forgedRefused = err instanceof WebhookVerificationError;
  }
  webhook = { type: event.type, dealId: event.dealId, verified: true, forgedRefused };
}
receiver.close();

console.log(JSON.stringify({ node: process.version, stepTypes, uploads, status, requestIdMatches, missingFields, dryRun, movedTo, webhook }));
