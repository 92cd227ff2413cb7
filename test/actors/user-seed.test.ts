// Bulk account creation (user.createMany, behind `parley user seed`): the accounts work, belong
// to the members' system groups, and their events bring a registered client to the same state as
// a fresh registration.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertSuccess } from '../helpers/assert.js';
import { expectConsistent } from '../helpers/consistency.js';
import { basic, startTestServer, type TestRealm, type TestServer } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;

const t = suite('user.createMany');
t.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
});
t.after(() => server.close());

t('creates working member accounts whose events match a fresh register', async () => {
  let created: Array<{ id: number; email: string; apiKey: string }> = [];
  const events = await expectConsistent(
    realm.owner,
    async () => {
      created = await realm.handle.ask('user.createMany', {
        accounts: [
          { email: 'ann@example.com', fullName: 'Ann' },
          { email: 'bob@example.com', fullName: 'Bob' },
        ],
      });
    },
    { types: ['realm_user', 'user_group'] },
  );
  assert.is(created.length, 2);
  assert.is(events.filter((e) => e.type === 'realm_user' && e.op === 'add').length, 2);
  const me = assertSuccess(
    await server.request('GET', '/api/v1/users/me', {}, { host: realm.host, auth: basic(created[1]!.email, created[1]!.apiKey) }),
  );
  assert.is(me.full_name, 'Bob');
  assert.is(me.role, 400);
  const groups = assertSuccess(await realm.owner.get('/api/v1/user_groups')).user_groups as Array<{ name: string; members: number[] }>;
  const members = groups.find((g) => g.name === 'role:members')!;
  for (const c of created) assert.ok(members.members.includes(c.id), `${c.email} is in role:members`);
});

t('refuses an address in use, and a duplicate within the batch, creating nobody', async () => {
  const count = async () => (assertSuccess(await realm.owner.get('/api/v1/users')).members as unknown[]).length;
  const before = await count();
  for (const accounts of [
    [{ email: 'ann@example.com', fullName: 'Ann Again' }],
    [
      { email: 'cy@example.com', fullName: 'Cy' },
      { email: 'CY@example.com', fullName: 'Cy Too' },
    ],
  ]) {
    try {
      await realm.handle.ask('user.createMany', { accounts });
      assert.unreachable('should refuse');
    } catch (e) {
      assert.is((e as { code?: string }).code, 'BAD_REQUEST');
      assert.match((e as Error).message, /already in use/i);
    }
  }
  assert.is(await count(), before);
});

t.run();
