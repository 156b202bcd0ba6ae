// What the scenarios run against, made through the public API of the running service: a deal with a
// 10-step workflow, an investor with 8 events, investors to move, an asset to subscribe to. The bulk
// data (deals of 1,000 to 100,000 investors) comes from `dealflow seed` (see seed.ts). Each part is
// made only when the routes it needs exist, so a scenario whose endpoint has not landed reports
// "not available" instead of failing.
import { investorBody } from '../test/support/fixtures.ts';
import { type HttpClient, inParallel } from './http.ts';

export const STEP_COUNT = 10;

export interface Fixtures {
  dealId: string;
  stepIds: string[];
  /** An investor whose journey in the deal has 8 events. */
  journeyInvestorId?: string;
  /** Its journey's ETag, when the service gives one (conditional reads). */
  journeyEtag?: string;
  /** Investors with a directory entry and no journey yet: the low-contention jumpers. */
  manyInvestorIds: string[];
  /** The 10 investors that the high-contention jumps share. */
  fewInvestorIds: string[];
  assetId?: number;
}

/** "GET /deals/deal/{dealId}/workflow-status" and the like, read from the service's OpenAPI document. */
export async function availableRoutes(baseUrl: string): Promise<Set<string>> {
  const response = await fetch(`${baseUrl}/openapi.json`);
  if (!response.ok) throw new Error(`GET /openapi.json: ${response.status}`);
  const document = (await response.json()) as { paths?: Record<string, Record<string, unknown>> };
  const routes = new Set<string>();
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const method of Object.keys(operations)) routes.add(`${method.toUpperCase()} ${path}`);
  }
  return routes;
}

const workflowDocument = (stepIds: string[]) => ({
  label: 'Benchmark workflow',
  description: 'Ten steps in a line, one optional field each',
  investorEngagementEnabled: true,
  steps: stepIds.map((id, i) => ({
    id,
    label: `Step ${String(i + 1).padStart(2, '0')}`,
    type: 'default',
    stepFields: [
      { fieldKey: `note_${i + 1}`, required: false, kind: 'text', label: `Note ${i + 1}` },
      ...(i === 1 ? [{ fieldKey: 'committed_amount', required: false, kind: 'amount', label: 'Committed amount' }] : []),
    ],
  })),
  links: stepIds.slice(1).map((id, i) => ({ fromStepId: stepIds[i]!, toStepId: id })),
});

/** The body of a jump of any investor to step `index` (0-based) of the benchmark workflow. */
export const jumpBody = (fixtures: Fixtures, investorUserId: string, index: number) => ({
  investorUserId,
  targetStepId: fixtures.stepIds[index]!,
  data: { [`note_${index + 1}`]: `moved to ${index + 1}`, ...(index === 1 ? { committed_amount: '25000.00' } : {}) },
});

export async function createFixtures(
  client: HttpClient,
  routes: Set<string>,
  options: { manyInvestors: number; log: (line: string) => void },
): Promise<Fixtures> {
  const dealId = 'bench-deal';
  const stepIds = Array.from({ length: STEP_COUNT }, (_, i) => `bench-step-${i + 1}`);
  await client.must([200, 201], 'PUT', `/deals/deal/${dealId}`, { name: 'Benchmark deal', currency: 'EUR' });

  const investorIds = Array.from({ length: options.manyInvestors + 11 }, (_, i) => `bench-investor-${String(i + 1).padStart(6, '0')}`);
  options.log(`creating ${investorIds.length} directory entries through PUT /investors/{id}`);
  await inParallel(investorIds, 8, async (id, i) => {
    await client.must([200, 201], 'PUT', `/investors/${id}`, investorBody({ forename: 'Bench', surname: `Investor${i + 1}` }));
  });
  const fixtures: Fixtures = {
    dealId,
    stepIds,
    manyInvestorIds: investorIds.slice(11),
    fewInvestorIds: investorIds.slice(1, 11),
  };

  if (routes.has('PUT /deals/deal/{dealId}/workflow')) {
    await client.must([200, 201], 'PUT', `/deals/deal/${dealId}/workflow`, workflowDocument(stepIds));
    if (routes.has('POST /deals/deal/{dealId}/jump-to-step')) {
      const journeyInvestorId = investorIds[0]!;
      for (let step = 0; step < 8; step++) {
        await client.must([201], 'POST', `/deals/deal/${dealId}/jump-to-step`, jumpBody(fixtures, journeyInvestorId, step));
      }
      fixtures.journeyInvestorId = journeyInvestorId;
      const read = await client.must([200], 'GET', `/deals/deal/${dealId}/investor-data/${journeyInvestorId}`);
      if (read.etag !== undefined) fixtures.journeyEtag = read.etag;
    }
  }

  if (routes.has('PUT /portfolio/assets/{assetId}')) {
    await client.must([200, 201], 'PUT', '/portfolio/assets/1', { name: 'Benchmark Fund I', currency: 'EUR' });
    fixtures.assetId = 1;
  }
  return fixtures;
}
