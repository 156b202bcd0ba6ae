// Staff people (docs/reference/staff.md): invited by an admin, given another role, deactivated;
// listed with their last sign-in, and their sessions. Their sign-in is the console's door
// (sign-in-door.ts, under /console/api).
import type { Deps } from '../../operations/deps.ts';
import { write } from '../../operations/pipeline.ts';
import { setDigest } from '../../operations/mail-digest.ts';
import { changeRole, deactivatePerson, invitePerson, listPeople, listPersonSessions } from '../../operations/staff.ts';
import { principalOf } from '../auth.ts';
import type { Api, AppContext } from '../context.ts';
import { IdempotencyHeaders } from '../idempotency.ts';
import {
  Deactivated,
  DigestBody,
  DigestSetting,
  PersonChanged,
  PersonParams,
  RoleBody,
  StaffInvitation,
  StaffInvitationBody,
  StaffPeople,
  StaffSessions,
} from '../schemas/staff.ts';
import { answer, writeOf } from '../writes.ts';

const tags = ['staff'];

export function staffRoutes(app: Api, ctx: AppContext) {
  app.post(
    '/staff/invitations',
    {
      schema: {
        tags,
        operationId: 'createStaffInvitation',
        summary: 'Invite a person to the console with a role',
        description:
          'Admin. Adds the person when their e-mail is new and answers a single-use link (valid STAFF_INVITATION_DAYS) with which they register a passkey; ' +
          'their earlier unused links are revoked. An active person with another role: 409 (change it with PUT /staff/{personId}); a deactivated one: 409.',
        headers: IdempotencyHeaders,
        body: StaffInvitationBody,
        response: { 201: StaffInvitation },
      },
    },
    async (request, reply) => {
      const invite = (tx: Deps) => invitePerson(tx, ctx.config, principalOf(request), request.body);
      return answer(reply, await write(ctx, writeOf(ctx, request), 201, invite));
    },
  );

  app.get(
    '/staff',
    {
      schema: {
        tags,
        operationId: 'listStaffPeople',
        summary: 'Every staff person: role, last sign-in, live sessions; active first',
        description: 'Staff. Deactivated people stay listed, with when.',
        response: { 200: StaffPeople },
      },
    },
    async () => ({ people: await listPeople(ctx) }),
  );

  app.put(
    '/staff/:personId',
    {
      schema: {
        tags,
        operationId: 'setStaffRole',
        summary: "Change a person's role",
        description:
          "Admin. Applies to the person's open sessions from their next request. Your own role: 409 (another admin changes it); a deactivated person: 409.",
        params: PersonParams,
        body: RoleBody,
        response: { 200: PersonChanged },
      },
    },
    async (request, reply) => {
      const change = (tx: Deps) => changeRole(tx, principalOf(request), request.params.personId, request.body.role);
      return answer(reply, await write(ctx, writeOf(ctx, request), 200, async (tx) => ({ personId: await change(tx) })));
    },
  );

  app.put(
    '/staff/:personId/digest',
    {
      schema: {
        tags,
        operationId: 'setStaffDigest',
        summary: "Turn a person's daily digest e-mail off or on",
        description:
          'The person themselves (any role), or an admin for anyone (another person: 403). The digest lists what waits for staff: edit requests, queued payments, documents to countersign, approvals. On unless turned off; audited as staff.digest-changed.',
        params: PersonParams,
        body: DigestBody,
        response: { 200: DigestSetting },
      },
    },
    async (request, reply) => {
      const set = (tx: Deps) => setDigest(tx, principalOf(request), request.params.personId, request.body.dailyDigest);
      return answer(reply, await write(ctx, writeOf(ctx, request), 200, set));
    },
  );

  app.post(
    '/staff/:personId/deactivate',
    {
      schema: {
        tags,
        operationId: 'setStaffPersonDeactivated',
        summary: 'Deactivate a person: their sessions, passkeys, open invitations and API keys end now',
        description: 'Admin. One transaction; every instance refuses their keys and sessions from the commit on. Yourself: 409.',
        params: PersonParams,
        headers: IdempotencyHeaders,
        response: { 200: Deactivated },
      },
    },
    async (request, reply) => {
      const deactivate = (tx: Deps) => deactivatePerson(tx, principalOf(request), request.params.personId);
      return answer(reply, await write(ctx, writeOf(ctx, request), 200, deactivate));
    },
  );

  app.get(
    '/staff/:personId/sessions',
    {
      schema: {
        tags,
        operationId: 'listStaffSessions',
        summary: "A person's live console sessions, newest first",
        description: "An admin sees anyone's; other staff their own (403 for another's).",
        params: PersonParams,
        response: { 200: StaffSessions },
      },
    },
    async (request) => listPersonSessions(ctx, principalOf(request), request.params.personId),
  );
}
