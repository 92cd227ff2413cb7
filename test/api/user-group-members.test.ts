// Members and subgroups of user groups: POST/GET /user_groups/{id}/members, POST/GET
// /user_groups/{id}/subgroups, and GET /user_groups/{id}/members/{user_id} (endpoint 20).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Role } from '../../src/domain/roles.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { oneOfEachRole, ROLE_NAMES, type OneOfEachRole } from '../helpers/roles.js';
import { systemGroup } from '../helpers/groups.js';
import { expectConsistent } from '../helpers/consistency.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: OneOfEachRole;
let ann: TestUser;
let ben: TestUser;
let counter = 0;

async function createGroup(by: TestUser, params: Record<string, unknown> = {}): Promise<number> {
  const r = assertSuccess(
    await by.post('/api/v1/user_groups/create', { name: `g-${++counter}`, description: '', members: [], ...params } as never),
  );
  return r.group_id as number;
}

const members = async (id: number, direct = false) =>
  assertSuccess(await cast.member.get(`/api/v1/user_groups/${id}/members`, { direct_member_only: direct })).members as number[];
const subgroups = async (id: number, direct = false) =>
  assertSuccess(await cast.member.get(`/api/v1/user_groups/${id}/subgroups`, { direct_subgroup_only: direct })).subgroups as number[];
const isMember = async (id: number, userId: number, direct = false) =>
  assertSuccess(await cast.member.get(`/api/v1/user_groups/${id}/members/${userId}`, { direct_member_only: direct })).is_user_group_member as boolean;

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

const setup = async () => {
  server ??= await startTestServer();
  realm ??= await server.createRealm();
  cast ??= await oneOfEachRole(realm, { botOwner: 'member' });
  ann ??= await realm.createUser({ name: 'Ann' });
  ben ??= await realm.createUser({ name: 'Ben' });
};

const m = suite('POST /user_groups/{id}/members');
m.before(setup);

m('add and delete members; events consistent with register', async () => {
  const id = await createGroup(cast.member, { members: [ann.id] });
  const events = await expectConsistent(
    cast.member,
    async () => assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/members`, { add: [ben.id, cast.bot.id], delete: [ann.id] })),
    { types: ['user_group'] },
  );
  assert.equal(events.map((e) => e.op), ['add_members', 'remove_members']);
  assert.equal(await members(id), sorted([ben.id, cast.bot.id]));
});

m('members and subgroups in one request', async () => {
  const sub = await createGroup(cast.member, { members: [ann.id] });
  const id = await createGroup(cast.member);
  await expectConsistent(
    cast.member,
    async () => assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/members`, { add: [ben.id], add_subgroups: [sub] })),
    { types: ['user_group'] },
  );
  assert.equal(await members(id), sorted([ann.id, ben.id]));
  assert.equal(await members(id, true), [ben.id]);
  await expectConsistent(
    cast.member,
    async () => assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/members`, { delete_subgroups: [sub] })),
    { types: ['user_group'] },
  );
  assert.equal(await subgroups(id), []);
});

m('errors', async () => {
  const id = await createGroup(cast.member, { members: [ann.id] });
  const post = (params: Record<string, unknown>) => cast.member.post(`/api/v1/user_groups/${id}/members`, params as never);
  assertError(await post({}), 'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
  assertError(await post({ add: [ann.id] }), `User ${ann.id} is already a member of this group`);
  assertError(await post({ delete: [ben.id] }), `There is no member '${ben.id}' in this user group`);
  assertError(await post({ add: [999999] }), 'Invalid user ID: 999999');
  assertError(await post({ add: ['x'] }), 'add[0] is not an integer');
  assertError(await cast.member.post('/api/v1/user_groups/999999/members', { add: [ben.id] }), 'Invalid user group');
  assertError(await cast.owner.post(`/api/v1/user_groups/${systemGroup(realm, 'role:members')}/members`, { add: [ben.id] }), 'Insufficient permission');
  const gone = await realm.createUser();
  await realm.handle.ask('user.setActive', { userId: gone.id, active: false, actorId: null });
  assertError(await post({ add: [gone.id] }), `Invalid user ID: ${gone.id}`);
  // A failed request changes nothing.
  assertError(await post({ add: [ben.id], delete: [cast.admin.id] }), `There is no member '${cast.admin.id}' in this user group`);
  assert.equal(await members(id), [ann.id]);
});

m('adding others needs can_add_members_group (default: the creator), by role', async () => {
  const id = await createGroup(cast.member);
  const expected: Record<string, string | null> = {
    owner: null, // can_manage_all_groups
    admin: 'Insufficient permission',
    moderator: 'Insufficient permission',
    member: null,
    guest: 'Not allowed for guest users',
    bot: 'Insufficient permission',
  };
  for (const role of ROLE_NAMES) {
    const target = await realm.createUser();
    const res = await cast[role].post(`/api/v1/user_groups/${id}/members`, { add: [target.id] });
    if (expected[role] === null) assertSuccess(res);
    else assertError(res, expected[role]!);
  }
});

m('joining needs can_join_group or can_add_members_group; leaving needs can_leave_group', async () => {
  const id = await createGroup(cast.member, { can_join_group: systemGroup(realm, 'role:moderators') });
  assertError(await ann.post(`/api/v1/user_groups/${id}/members`, { add: [ann.id] }), 'Insufficient permission');
  assertSuccess(await cast.moderator.post(`/api/v1/user_groups/${id}/members`, { add: [cast.moderator.id] }));
  assertSuccess(await cast.admin.post(`/api/v1/user_groups/${id}/members`, { add: [cast.admin.id] }));
  // Joining is only for oneself.
  assertError(await cast.moderator.post(`/api/v1/user_groups/${id}/members`, { add: [ann.id] }), 'Insufficient permission');
  // can_leave_group defaults to everyone.
  assertSuccess(await cast.moderator.post(`/api/v1/user_groups/${id}/members`, { delete: [cast.moderator.id] }));
  // Removing others needs can_remove_members_group (default nobody) or management.
  assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/members`, { add: [ann.id] }));
  assertError(await cast.admin.post(`/api/v1/user_groups/${id}/members`, { delete: [ann.id] }), 'Insufficient permission');
  assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/members`, { delete: [ann.id] }));
  const locked = await createGroup(cast.member, { members: [ann.id], can_leave_group: systemGroup(realm, 'role:nobody') });
  assertError(await ann.post(`/api/v1/user_groups/${locked}/members`, { delete: [ann.id] }), 'Insufficient permission');
});

m('guests cannot join even when can_join_group is everyone; bots can', async () => {
  const id = await createGroup(cast.member, { can_join_group: systemGroup(realm, 'role:everyone') });
  assertError(await cast.guest.post(`/api/v1/user_groups/${id}/members`, { add: [cast.guest.id] }), 'Not allowed for guest users');
  assertSuccess(await cast.bot.post(`/api/v1/user_groups/${id}/members`, { add: [cast.bot.id] }));
  // Others may add a guest.
  assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/members`, { add: [cast.guest.id] }));
});

m('a deactivated group keeps accepting membership changes', async () => {
  const id = await createGroup(cast.member);
  assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/deactivate`));
  assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/members`, { add: [ann.id] }));
  assert.equal(await members(id), [ann.id]);
});

const s = suite('subgroups');
s.before(setup);


s('add and delete subgroups; recursive and direct reads; events consistent', async () => {
  const leaf = await createGroup(cast.member, { members: [ann.id] });
  const mid = await createGroup(cast.member, { subgroups: [leaf] });
  const top = await createGroup(cast.member);
  const events = await expectConsistent(
    cast.member,
    async () => assertSuccess(await cast.member.post(`/api/v1/user_groups/${top}/subgroups`, { add: [mid] })),
    { types: ['user_group'] },
  );
  assert.equal(events.map((e) => e.op), ['add_subgroups']);
  assert.equal(await subgroups(top), sorted([mid, leaf]));
  assert.equal(await subgroups(top, true), [mid]);
  assert.equal(await members(top), [ann.id]);
  await expectConsistent(
    cast.member,
    async () => assertSuccess(await cast.member.post(`/api/v1/user_groups/${top}/subgroups`, { delete: [mid] })),
    { types: ['user_group'] },
  );
  assert.equal(await subgroups(top), []);
});

s('errors: nothing to do, duplicates, cycles, unknown and deactivated groups', async () => {
  const a = await createGroup(cast.member);
  const b = await createGroup(cast.member, { subgroups: [a] });
  const post = (id: number, params: Record<string, unknown>) => cast.member.post(`/api/v1/user_groups/${id}/subgroups`, params as never);
  assertError(await post(b, {}), 'Nothing to do. Specify at least one of "add" or "delete".');
  assertError(await post(b, { add: [a] }), `User group ${a} is already a subgroup of this group.`);
  assertError(await post(a, { add: [b] }), `User group ${a} is already a subgroup of one of the following groups: ${b}.`);
  assertError(await post(a, { add: [a] }), `User group ${a} is already a subgroup of one of the following groups: ${a}.`);
  assertError(await post(a, { delete: [b] }), `User group ${b} is not a subgroup of this group.`);
  assertError(await post(a, { add: [999999] }), 'Invalid user group ID: 999999');
  assertError(await post(a, { delete: [999999] }), 'Invalid user group ID: 999999');
  const dead = await createGroup(cast.member);
  assertSuccess(await cast.member.post(`/api/v1/user_groups/${dead}/deactivate`));
  assertError(await post(a, { add: [dead] }), 'User group is deactivated.');
  // System groups may be subgroups.
  assertSuccess(await post(a, { add: [systemGroup(realm, 'role:moderators')] }));
  assert.ok((await members(a)).includes(cast.moderator.id));
  assert.ok((await members(a)).includes(cast.owner.id));
});

s('permission: adding needs can_add_members_group, removing can_remove_members_group', async () => {
  const sub = await createGroup(cast.member);
  const id = await createGroup(cast.member, {
    can_add_members_group: systemGroup(realm, 'role:moderators'),
    can_remove_members_group: systemGroup(realm, 'role:administrators'),
  });
  const expectedAdd: Record<string, string | null> = {
    owner: null,
    admin: null,
    moderator: null,
    member: null, // manages it (creator)
    guest: 'Not allowed for guest users',
    bot: 'Insufficient permission',
  };
  for (const role of ROLE_NAMES) {
    const res = await cast[role].post(`/api/v1/user_groups/${id}/subgroups`, { add: [sub] });
    if (expectedAdd[role] === null) {
      assertSuccess(res);
      assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/subgroups`, { delete: [sub] }));
    } else assertError(res, expectedAdd[role]!);
  }
  assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/subgroups`, { add: [sub] }));
  assertError(await cast.moderator.post(`/api/v1/user_groups/${id}/subgroups`, { delete: [sub] }), 'Insufficient permission');
  assertSuccess(await cast.admin.post(`/api/v1/user_groups/${id}/subgroups`, { delete: [sub] }));
});

const check = suite('GET /user_groups/{id}/members/{user_id}');
check.before(setup);

check('direct and recursive membership; deactivated users are non-members', async () => {
  const leaf = await createGroup(cast.member, { members: [ann.id] });
  const top = await createGroup(cast.member, { members: [ben.id], subgroups: [leaf] });
  assert.is(await isMember(top, ben.id), true);
  assert.is(await isMember(top, ann.id), true);
  assert.is(await isMember(top, ann.id, true), false);
  assert.is(await isMember(top, cast.admin.id), false);
  const gone = await realm.createUser();
  const g = await createGroup(cast.member, { members: [gone.id] });
  assert.is(await isMember(g, gone.id), true);
  await realm.handle.ask('user.setActive', { userId: gone.id, active: false, actorId: null });
  assert.is(await isMember(g, gone.id), false);
  assert.is(await isMember(g, gone.id, true), false);
  assert.equal(await members(g), []);
});

check('system groups by role; bots are valid targets', async () => {
  const moderators = systemGroup(realm, 'role:moderators');
  assert.is(await isMember(moderators, cast.owner.id), true);
  assert.is(await isMember(moderators, cast.owner.id, true), false);
  assert.is(await isMember(moderators, cast.member.id), false);
  assert.is(await isMember(systemGroup(realm, 'role:members'), cast.bot.id), true);
  assert.is(await isMember(systemGroup(realm, 'role:everyone'), cast.guest.id), true);
  assert.is(await isMember(systemGroup(realm, 'role:members'), cast.guest.id), false);
});

check('errors and callers by role', async () => {
  const g = await createGroup(cast.member);
  assertError(await cast.member.get(`/api/v1/user_groups/999999/members/${ann.id}`), 'Invalid user group');
  assertError(await cast.member.get(`/api/v1/user_groups/${g}/members/999999`), 'No such user');
  assertError(await cast.member.get(`/api/v1/user_groups/${g}/members/x`), 'user_id is not an integer');
  for (const role of ROLE_NAMES) {
    const res = await cast[role].get(`/api/v1/user_groups/${g}/members/${ann.id}`);
    if (role === 'guest') assertError(res, 'Not allowed for guest users');
    else assert.is(assertSuccess(res).is_user_group_member, false);
  }
  assertError(await cast.guest.get(`/api/v1/user_groups/${g}/members`), 'Not allowed for guest users');
  assertError(await cast.guest.get(`/api/v1/user_groups/${g}/subgroups`), 'Not allowed for guest users');
  assertError(await cast.member.get('/api/v1/user_groups/999999/members'), 'Invalid user group');
});

const accounts = suite('memberships follow accounts (system groups, deactivation)');
accounts.before(setup);

const both = { types: ['realm_user', 'user_group'] };

accounts('a new account joins its role groups, consistent with register', async () => {
  const events = await expectConsistent(cast.member, () => realm.createUser({ role: Role.moderator }), both);
  assert.equal(events.map((e) => `${e.type}:${e.op}`), ['realm_user:add', 'user_group:add_members']);
  assert.is(events[1]!.group_id, systemGroup(realm, 'role:moderators'));
});

accounts('a role change moves the account between role groups', async () => {
  const u = await realm.createUser();
  const events = await expectConsistent(
    cast.member,
    () => realm.handle.ask('user.setRole', { userId: u.id, role: Role.administrator, actorId: null }),
    both,
  );
  assert.equal(events.filter((e) => e.type === 'user_group').map((e) => e.op).sort(), ['add_members', 'remove_members', 'remove_members']);
  assert.is(await isMember(systemGroup(realm, 'role:administrators'), u.id, true), true);
  assert.is(await isMember(systemGroup(realm, 'role:members'), u.id, true), false);
});

accounts('deactivation hides every membership; reactivation restores them', async () => {
  const u = await realm.createUser();
  const g = await createGroup(cast.member, { members: [u.id] });
  await expectConsistent(cast.member, () => realm.handle.ask('user.setActive', { userId: u.id, active: false, actorId: null }), both);
  assert.equal(await members(g), []);
  await expectConsistent(cast.member, () => realm.handle.ask('user.setActive', { userId: u.id, active: true, actorId: null }), both);
  assert.equal(await members(g), [u.id]);
});

accounts.after(async () => {
  await server.close();
});

m.run();
s.run();
check.run();
accounts.run();
