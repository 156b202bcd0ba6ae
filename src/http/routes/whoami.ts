// GET /whoami: the caller as the service sees it; the simplest authenticated route.
import { Type } from 'typebox';
import type { Api } from '../context.ts';
import { principalOf } from '../auth.ts';

export function whoamiRoutes(app: Api) {
  app.get(
    '/whoami',
    {
      config: { roles: ['admin', 'investor'] },
      schema: {
        tags: ['access'],
        summary: 'The caller: user id, role and, for investors, the investor they are bound to',
        response: {
          200: Type.Object({
            userId: Type.String(),
            role: Type.String(),
            investorUserId: Type.Optional(Type.String()),
          }),
        },
      },
    },
    async (request) => {
      const { userId, role, investorUserId } = principalOf(request);
      return { userId, role, ...(investorUserId ? { investorUserId } : {}) };
    },
  );
}
