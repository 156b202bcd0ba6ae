// The console offers and orders staff roles as the service does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROLES, roleIncludes } from '../../web/console/src/lib/roles.ts';
import { roleMeets, staffRoles } from '../../src/domain/principal.ts';

test("the console's staff roles are the service's, least power first", () => {
  assert.deepEqual([...ROLES], [...staffRoles]);
});

test('a role includes the ones before it, as the service decides', () => {
  for (const role of [...staffRoles, 'investor', 'unknown']) {
    for (const needed of staffRoles) assert.equal(roleIncludes(role, needed), roleMeets(role as never, needed), `${role} for ${needed}`);
  }
});
