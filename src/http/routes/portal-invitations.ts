// POST /investors/portal-invitations (admin): invitation links to the investor portal, their
// e-mails enqueued with them when SMTP_URL is set (docs/reference/portal-access.md).
import { createPortalInvitations } from '../../operations/portal-invitations.ts';
import { principalOf } from '../auth.ts';
import type { Api, AppContext } from '../context.ts';
import { InvitationsBody, PortalInvitations } from '../schemas/portal.ts';

export function portalInvitationRoutes(app: Api, ctx: AppContext) {
  app.post(
    '/investors/portal-invitations',
    {
      schema: {
        tags: ['portal'],
        summary: 'Invite investors to the investor portal',
        description:
          "One single-use link per investor, valid PORTAL_INVITATION_DAYS; a new invitation revokes the investor's earlier unused ones. " +
          'All or none: an unknown investor id is a 404 naming it, and nothing is created. With SMTP_URL set, each investor with an e-mail address is sent the link (enqueued with the invitation, sent by the mail dispatcher).',
        body: InvitationsBody,
        response: { 201: PortalInvitations },
      },
    },
    async (request, reply) => {
      const invitations = await createPortalInvitations(ctx, ctx.config.portal, principalOf(request), request.body.investorUserIds);
      return reply.code(201).send({ invitations });
    },
  );
}
