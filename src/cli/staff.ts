// `dealflow staff`: invite a person to the console with a role (the same operation as an admin's
// POST /staff/invitations), list the staff, deactivate one. Runs inside a running service that
// holds the embedded database, as `token` does (service-channel.ts).
import { AppError } from '../domain/errors.ts';
import { isStaffRole } from '../domain/principal.ts';
import { type Command, out, withDatabase } from './command.ts';

export const staffCommand: Command = {
  summary: 'invite staff to the console with a role, list them, deactivate one',
  help: `dealflow staff invite <EMAIL> --role viewer|operator|approver|admin [--name <name>]
dealflow staff list
dealflow staff deactivate <personId>

invite: adds the person when the e-mail is new and prints a single-use link (valid
STAFF_INVITATION_DAYS) with which they register a passkey and sign in to the console.
deactivate: ends their sessions, passkeys, open invitations and API keys at once.`,
  options: { role: { type: 'string' }, name: { type: 'string' } },
  async run(config, values, positionals) {
    const [action, subject] = positionals;
    const [staff, { newUuid, systemClock }, { SYSTEM_PRINCIPAL }] = await Promise.all([
      import('../operations/staff.ts'),
      import('../operations/deps.ts'),
      import('../operations/audit-entries.ts'),
    ]);
    const principal = { ...SYSTEM_PRINCIPAL, userId: 'cli', tokenKey: 'cli' };
    return withDatabase(config, async ({ db }) => {
      const deps = { db, clock: systemClock, newId: newUuid };
      if (action === 'invite' && subject !== undefined && positionals.length === 2) {
        if (!isStaffRole(values.role)) throw new AppError('validation', '--role must be viewer, operator, approver or admin');
        const name = typeof values.name === 'string' ? values.name : subject.split('@')[0]!;
        const invitation = await staff.invitePerson(deps, config, principal, { email: subject, name, role: values.role });
        out(`Invited ${invitation.email} as ${invitation.role} (person ${invitation.personId}). The link works once, until ${invitation.expiresAt}:`);
        out(invitation.url);
        return 0;
      }
      if (action === 'list' && positionals.length === 1) {
        out(['id'.padEnd(36), 'role'.padEnd(8), 'status'.padEnd(11), 'last sign-in'.padEnd(24), 'name <e-mail>'].join('  '));
        for (const p of await staff.listPeople(deps)) {
          const status = p.deactivatedAt ? 'deactivated' : 'active';
          out([p.personId, p.role.padEnd(8), status.padEnd(11), (p.lastSignInAt ?? '-').padEnd(24), `${p.name} <${p.email}>`].join('  '));
        }
        return 0;
      }
      if (action === 'deactivate' && subject !== undefined && positionals.length === 2) {
        const { revokedKeys } = await staff.deactivatePerson(deps, principal, subject);
        out(`Deactivated ${subject}; their sessions ended and ${revokedKeys.length} API key(s) were revoked.`);
        return 0;
      }
      process.stderr.write(`${this.help}\n`);
      return 1;
    });
  },
};
