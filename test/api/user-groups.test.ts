// User groups: POST /user_groups/create (endpoint 8), GET /user_groups, PATCH
// /user_groups/{id}, POST /user_groups/{id}/deactivate; the system groups, group-setting values
// in both forms, permission tables per role, and the user_group events.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkGroupCaller } from '../../src/http/endpoints/user-groups.js';
import { botsAreMembershipTargets, botsMayCallGroupEndpoints, groupNameProblem } from '../../src/domain/group-permissions.js';
import { assertError, assertSuccess, catchApiError } from '../helpers/assert.js';
import { oneOfEachRole, ROLE_NAMES, type OneOfEachRole } from '../helpers/roles.js';
import { setRealmGroupSetting, systemGroup } from '../helpers/groups.js';
import { expectConsistent } from '../helpers/consistency.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: OneOfEachRole;
let other: TestUser;
let counter = 0;

const uniqueName = (base = 'team') => `${base}-${++counter}`;

async function createGroup(by: TestUser, params: Record<string, unknown> = {}): Promise<number> {
  const r = assertSuccess(
    await by.post('/api/v1/user_groups/create', { name: uniqueName(), description: 'A group', members: [], ...params } as never),
  );
  return r.group_id as number;
}

async function group(by: TestUser, id: number, includeDeactivated = true): Promise<Record<string, any> | undefined> {
  const r = assertSuccess(await by.get('/api/v1/user_groups', { include_deactivated_groups: includeDeactivated }));
  return (r.user_groups as Record<string, any>[]).find((g) => g.id === id);
}

const withDeactivated = { registerParams: { client_capabilities: { include_deactivated_groups: true } } };

const setup = async () => {
  server ??= await startTestServer();
  realm ??= await server.createRealm();
  cast ??= await oneOfEachRole(realm, { botOwner: 'member' });
  other ??= await realm.createUser({ name: 'Otto Other' });
};

const create = suite('POST /user_groups/create');
create.before(setup);

create('returns the new id; the group reads back with defaults for every setting', async () => {
  const id = await createGroup(cast.member, { name: 'Frontend', description: 'UI people', members: [other.id, cast.member.id] });
  const g = (await group(cast.member, id))!;
  assert.is(g.name, 'Frontend');
  assert.is(g.description, 'UI people');
  assert.equal(g.members, [cast.member.id, other.id].sort((a, b) => a - b));
  assert.equal(g.direct_subgroup_ids, []);
  assert.is(g.is_system_group, false);
  assert.is(g.deactivated, false);
  assert.is(g.creator_id, cast.member.id);
  assert.type(g.date_created, 'number');
  const creatorOnly = { direct_members: [cast.member.id], direct_subgroups: [] };
  assert.equal(g.can_manage_group, creatorOnly);
  assert.equal(g.can_add_members_group, creatorOnly);
  assert.is(g.can_join_group, systemGroup(realm, 'role:nobody'));
  assert.is(g.can_leave_group, systemGroup(realm, 'role:everyone'));
  assert.is(g.can_mention_group, systemGroup(realm, 'role:everyone'));
  assert.is(g.can_remove_members_group, systemGroup(realm, 'role:nobody'));
});

create('takes subgroups and settings in both forms', async () => {
  const sub = await createGroup(cast.member);
  const id = await createGroup(cast.member, {
    subgroups: [sub],
    can_manage_group: { direct_members: [other.id], direct_subgroups: [sub] },
    can_mention_group: systemGroup(realm, 'role:moderators'),
    can_join_group: { direct_members: [], direct_subgroups: [systemGroup(realm, 'role:members')] },
  });
  const g = (await group(cast.member, id))!;
  assert.equal(g.direct_subgroup_ids, [sub]);
  assert.equal(g.can_manage_group, { direct_members: [other.id], direct_subgroups: [sub] });
  assert.is(g.can_mention_group, systemGroup(realm, 'role:moderators'));
  // An object naming one group and no users is that group.
  assert.is(g.can_join_group, systemGroup(realm, 'role:members'));
});

create('emits user_group add, consistent with register', async () => {
  const events = await expectConsistent(cast.member, () => createGroup(cast.member, { members: [other.id] }), { types: ['user_group'] });
  assert.equal(events.map((e) => [e.type, e.op]), [['user_group', 'add']]);
});

create('names: empty, too long, reserved prefixes, duplicates (any case)', async () => {
  const post = (name: string) => cast.member.post('/api/v1/user_groups/create', { name, description: '', members: [] });
  assertError(await post(''), 'User group name cannot be empty.');
  assertError(await post('x'.repeat(101)), 'User group name cannot exceed 100 characters.');
  for (const prefix of ['@', 'role:', 'user:', 'stream:', 'channel:']) {
    assertError(await post(`${prefix}x`), `User group name cannot start with '${prefix}'.`);
  }
  const name = uniqueName('Dup');
  await createGroup(cast.member, { name });
  assertError(await post(name.toUpperCase()), `User group '${name.toUpperCase()}' already exists.`);
  assertError(await post('role:members'), "User group name cannot start with 'role:'.");
  assert.is(groupNameProblem('x'.repeat(100)), null);
});

create('required parameters and description length', async () => {
  assertError(await cast.member.post('/api/v1/user_groups/create', { name: 'n1', description: '' }), "Missing 'members' argument", 400, 'REQUEST_VARIABLE_MISSING');
  assertError(await cast.member.post('/api/v1/user_groups/create', { name: 'n1', members: [] }), "Missing 'description' argument");
  assertError(
    await cast.member.post('/api/v1/user_groups/create', { name: 'n1', description: 'd'.repeat(1025), members: [] }),
    'description is too long (limit: 1024 characters)',
  );
});

create('members must be active users of the organization', async () => {
  const gone = await realm.createUser();
  await realm.handle.ask('user.setActive', { userId: gone.id, active: false, actorId: null });
  const post = (members: number[]) => cast.member.post('/api/v1/user_groups/create', { name: uniqueName(), description: '', members });
  assertError(await post([other.id, 999999]), 'Invalid user ID: 999999', 400, 'BAD_REQUEST');
  assertError(await post([gone.id]), `Invalid user ID: ${gone.id}`);
  // Bots may be members.
  assertSuccess(await post([cast.bot.id]));
});

create('subgroups must be active named groups', async () => {
  const post = (subgroups: number[]) =>
    cast.member.post('/api/v1/user_groups/create', { name: uniqueName(), description: '', members: [], subgroups });
  assertError(await post([999999]), 'Invalid user group ID: 999999');
  const anon = (await group(cast.member, await createGroup(cast.member)))!.can_manage_group;
  assert.type(anon, 'object');
  const dead = await createGroup(cast.member);
  assertSuccess(await cast.member.post(`/api/v1/user_groups/${dead}/deactivate`));
  assertError(await post([dead]), 'User group is deactivated.');
  assertSuccess(await post([systemGroup(realm, 'role:moderators')]));
});

create('forbidden setting values', async () => {
  const post = (setting: string, value: unknown) =>
    cast.member.post('/api/v1/user_groups/create', { name: uniqueName(), description: '', members: [], [setting]: value as never });
  const cases: Array<[string, string]> = [
    ['can_manage_group', 'role:internet'],
    ['can_manage_group', 'role:everyone'],
    ['can_mention_group', 'role:internet'],
    ['can_mention_group', 'role:owners'],
    ['can_add_members_group', 'role:internet'],
    ['can_join_group', 'role:internet'],
    ['can_leave_group', 'role:internet'],
    ['can_remove_members_group', 'role:internet'],
  ];
  for (const [setting, g] of cases) {
    assertError(await post(setting, systemGroup(realm, g as never)), `'${setting}' setting cannot be set to '${g}' group.`);
  }
  // Allowed elsewhere: everyone may be mentioned by everyone, owners may manage.
  assertSuccess(await post('can_manage_group', systemGroup(realm, 'role:owners')));
  assertSuccess(await post('can_mention_group', systemGroup(realm, 'role:everyone')));
  assertSuccess(await post('can_join_group', systemGroup(realm, 'role:everyone')));
  assertError(await post('can_manage_group', { direct_members: [999999], direct_subgroups: [] }), 'Invalid user ID: 999999');
  assertError(await post('can_manage_group', { direct_members: [], direct_subgroups: [999999] }), 'Invalid user group ID: 999999');
  assertError(await post('can_manage_group', { direct_members: [] }), 'Invalid can_manage_group');
  assertError(await post('can_manage_group', 'x'), 'Argument "can_manage_group" is not valid JSON.');
});

create('permission by role (can_create_groups = role:members)', async () => {
  const expected: Record<string, string | null> = {
    owner: null,
    admin: null,
    moderator: null,
    member: null,
    guest: 'Not allowed for guest users',
    bot: null, // bots are admitted at feature level 496
  };
  for (const role of ROLE_NAMES) {
    const res = await cast[role].post('/api/v1/user_groups/create', { name: uniqueName(role), description: '', members: [] });
    if (expected[role] === null) assertSuccess(res);
    else assertError(res, expected[role]!);
  }
});

create('permission by role follows can_create_groups (role:moderators)', async () => {
  await realm.setGroupSetting('can_create_groups', 'role:moderators');
  try {
    const ok = new Set(['owner', 'admin', 'moderator']);
    for (const role of ROLE_NAMES) {
      const res = await cast[role].post('/api/v1/user_groups/create', { name: uniqueName(role), description: '', members: [] });
      if (ok.has(role)) assertSuccess(res);
      else assertError(res, role === 'guest' ? 'Not allowed for guest users' : 'Insufficient permission');
    }
  } finally {
    await realm.setGroupSetting('can_create_groups', 'role:members');
  }
});

create('guests never create groups, even when can_create_groups names them', async () => {
  await realm.setGroupSetting('can_create_groups', 'role:everyone');
  try {
    assertError(
      await cast.guest.post('/api/v1/user_groups/create', { name: uniqueName(), description: '', members: [] }),
      'Not allowed for guest users',
    );
  } finally {
    await realm.setGroupSetting('can_create_groups', 'role:members');
  }
});

create('bots are refused before feature level 496; bot targets before 458', () => {
  const bot = realm.handle.state.user(cast.bot.id)!;
  assert.is(catchApiError(() => checkGroupCaller(bot, 495)).message, 'This endpoint does not accept bot requests.');
  checkGroupCaller(bot, 496);
  assert.is(botsMayCallGroupEndpoints(495), false);
  assert.is(botsMayCallGroupEndpoints(496), true);
  assert.is(botsAreMembershipTargets(457), false);
  assert.is(botsAreMembershipTargets(458), true);
});

create('a deactivated account is refused', async () => {
  const gone = await realm.createUser();
  await realm.handle.ask('user.setActive', { userId: gone.id, active: false, actorId: null });
  assertError(await gone.post('/api/v1/user_groups/create', { name: uniqueName(), description: '', members: [] }), 'Account is deactivated', 401, 'USER_DEACTIVATED');
});

const list = suite('GET /user_groups and realm_user_groups');
list.before(setup);

list('system groups are listed with their fixed settings', async () => {
  const r = assertSuccess(await cast.member.get('/api/v1/user_groups'));
  const names = (r.user_groups as Array<{ name: string; is_system_group: boolean }>).filter((g) => g.is_system_group).map((g) => g.name);
  assert.equal(names.sort(), [
    'role:administrators',
    'role:everyone',
    'role:fullmembers',
    'role:internet',
    'role:members',
    'role:moderators',
    'role:nobody',
    'role:owners',
  ]);
  const admins = (r.user_groups as Record<string, any>[]).find((g) => g.name === 'role:administrators')!;
  assert.equal(admins.members, [cast.admin.id]);
  assert.equal(admins.direct_subgroup_ids, [systemGroup(realm, 'role:owners')]);
  assert.is(admins.creator_id, null);
  assert.is(admins.can_manage_group, systemGroup(realm, 'role:nobody'));
  assert.is(admins.can_mention_group, systemGroup(realm, 'role:everyone'));
  // Anonymous groups (setting values) are never listed.
  assert.ok((r.user_groups as Array<{ name: unknown }>).every((g) => typeof g.name === 'string'));
});

list('deactivated groups only on request; register follows include_deactivated_groups', async () => {
  const id = await createGroup(cast.member);
  assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/deactivate`));
  assert.is(await group(cast.member, id, false), undefined);
  assert.is((await group(cast.member, id, true))!.deactivated, true);
  const plain = assertSuccess(await cast.member.post('/api/v1/register', { fetch_event_types: ['user_group'] }));
  assert.not.ok(plain.realm_user_groups.some((g: { id: number }) => g.id === id));
  const full = assertSuccess(
    await cast.member.post('/api/v1/register', { fetch_event_types: ['user_group'], client_capabilities: { include_deactivated_groups: true } }),
  );
  assert.ok(full.realm_user_groups.some((g: { id: number }) => g.id === id));
});

list('deactivated users are not listed as members or in setting values', async () => {
  const u = await realm.createUser();
  const id = await createGroup(cast.member, { members: [u.id, other.id], can_manage_group: { direct_members: [u.id, other.id], direct_subgroups: [] } });
  await realm.handle.ask('user.setActive', { userId: u.id, active: false, actorId: null });
  const g = (await group(cast.member, id))!;
  assert.equal(g.members, [other.id]);
  assert.equal(g.can_manage_group, { direct_members: [other.id], direct_subgroups: [] });
});

list('guests are refused; bots may read', async () => {
  assertError(await cast.guest.get('/api/v1/user_groups'), 'Not allowed for guest users');
  assertSuccess(await cast.bot.get('/api/v1/user_groups'));
});

const update = suite('PATCH /user_groups/{id}');
update.before(setup);

update('name, description and settings; one event each, consistent with register', async () => {
  const id = await createGroup(cast.member);
  const everyone = systemGroup(realm, 'role:everyone');
  const newName = uniqueName('renamed');
  const events = await expectConsistent(
    cast.member,
    async () =>
      assertSuccess(
        await cast.member.patch(`/api/v1/user_groups/${id}`, {
          name: newName,
          description: 'New words',
          can_join_group: { new: everyone },
          can_manage_group: { new: { direct_members: [cast.member.id, other.id], direct_subgroups: [] } },
        }),
      ),
    { types: ['user_group'] },
  );
  assert.equal(
    events.map((e) => Object.keys(e.data)[0]),
    ['name', 'description', 'can_join_group', 'can_manage_group'],
  );
  const g = (await group(cast.member, id))!;
  assert.is(g.name, newName);
  assert.is(g.description, 'New words');
  assert.is(g.can_join_group, everyone);
  assert.equal(g.can_manage_group, { direct_members: [cast.member.id, other.id], direct_subgroups: [] });
});

update("'old' must match the current value", async () => {
  const id = await createGroup(cast.member);
  const nobody = systemGroup(realm, 'role:nobody');
  const members = systemGroup(realm, 'role:members');
  assertError(
    await cast.member.patch(`/api/v1/user_groups/${id}`, { can_join_group: { new: members, old: members } }),
    "'old' value does not match the expected value.",
  );
  assertSuccess(await cast.member.patch(`/api/v1/user_groups/${id}`, { can_join_group: { new: members, old: nobody } }));
  // The object form denotes the same value as the group it names.
  assertSuccess(
    await cast.member.patch(`/api/v1/user_groups/${id}`, {
      can_join_group: { new: nobody, old: { direct_members: [], direct_subgroups: [members] } },
    }),
  );
  assertError(
    await cast.member.patch(`/api/v1/user_groups/${id}`, {
      can_manage_group: { new: nobody, old: { direct_members: [other.id], direct_subgroups: [] } },
    }),
    "'old' value does not match the expected value.",
  );
  assertError(await cast.member.patch(`/api/v1/user_groups/${id}`, { can_join_group: members }), 'can_join_group is not a dict');
  assertError(
    await cast.member.patch(`/api/v1/user_groups/${id}`, { can_manage_group: { new: systemGroup(realm, 'role:everyone') } }),
    "'can_manage_group' setting cannot be set to 'role:everyone' group.",
  );
});

update('errors: nothing supplied, unknown or system group, duplicate name', async () => {
  const id = await createGroup(cast.member);
  assertError(await cast.member.patch(`/api/v1/user_groups/${id}`), 'No new data supplied');
  assertError(await cast.member.patch('/api/v1/user_groups/999999', { name: 'x' }), 'Invalid user group');
  assertError(await cast.owner.patch(`/api/v1/user_groups/${systemGroup(realm, 'role:members')}`, { description: 'x' }), 'Insufficient permission');
  const taken = uniqueName();
  await createGroup(cast.member, { name: taken });
  assertError(await cast.member.patch(`/api/v1/user_groups/${id}`, { name: taken }), `User group '${taken}' already exists.`);
  assertError(await cast.member.patch(`/api/v1/user_groups/${id}`, { name: 'role:x' }), "User group name cannot start with 'role:'.");
  // Unchanged values change nothing (and emit nothing).
  const g = (await group(cast.member, id))!;
  const events = await expectConsistent(cast.member, async () => assertSuccess(await cast.member.patch(`/api/v1/user_groups/${id}`, { name: g.name })), {
    types: ['user_group'],
  });
  assert.is(events.length, 0);
});

update('permission by role: can_manage_group (creator) or can_manage_all_groups (owners)', async () => {
  const id = await createGroup(cast.member);
  const expected: Record<string, string | null> = {
    owner: null,
    admin: 'Insufficient permission',
    moderator: 'Insufficient permission',
    member: null, // the creator
    guest: 'Not allowed for guest users',
    bot: 'Insufficient permission',
  };
  for (const role of ROLE_NAMES) {
    const res = await cast[role].patch(`/api/v1/user_groups/${id}`, { description: `by ${role}` });
    if (expected[role] === null) assertSuccess(res);
    else assertError(res, expected[role]!);
  }
  assertError(await other.patch(`/api/v1/user_groups/${id}`, { description: 'x' }), 'Insufficient permission');
});

update('can_manage_group excludes guests even when it names them', async () => {
  const id = await createGroup(cast.member, { can_manage_group: { direct_members: [cast.guest.id, cast.bot.id], direct_subgroups: [] } });
  assertError(await cast.guest.patch(`/api/v1/user_groups/${id}`, { description: 'x' }), 'Not allowed for guest users');
  assertSuccess(await cast.bot.patch(`/api/v1/user_groups/${id}`, { description: 'by the bot' }));
});

update('can_manage_all_groups grants every group', async () => {
  const id = await createGroup(cast.member);
  await realm.setGroupSetting('can_manage_all_groups', 'role:administrators');
  try {
    assertSuccess(await cast.admin.patch(`/api/v1/user_groups/${id}`, { description: 'by the admin' }));
    assertError(await cast.moderator.patch(`/api/v1/user_groups/${id}`, { description: 'x' }), 'Insufficient permission');
  } finally {
    await realm.setGroupSetting('can_manage_all_groups', 'role:owners');
  }
});

update('replaced anonymous values are not left behind', async () => {
  const id = await createGroup(cast.member);
  const before = realm.handle.state.groups.size;
  for (let i = 0; i < 3; i++) {
    assertSuccess(
      await cast.member.patch(`/api/v1/user_groups/${id}`, {
        can_manage_group: { new: { direct_members: [cast.member.id, i % 2 === 0 ? other.id : cast.admin.id], direct_subgroups: [] } },
      }),
    );
  }
  assert.is(realm.handle.state.groups.size, before);
  await realm.handle.reload();
  assert.is(realm.handle.state.groups.size, before);
});

const deactivate = suite('deactivation and reactivation');
deactivate.before(setup);

for (const includeDeactivated of [true, false]) {
  deactivate(`deactivate then reactivate, consistent with register (include_deactivated_groups=${includeDeactivated})`, async () => {
    const id = await createGroup(cast.member, { members: [other.id] });
    const o = { types: ['user_group'], ...(includeDeactivated ? withDeactivated : {}) };
    const off = await expectConsistent(cast.member, async () => assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/deactivate`)), o);
    assert.equal(off.map((e) => e.op), [includeDeactivated ? 'update' : 'remove']);
    // Changes to a deactivated group reach only clients that keep deactivated groups.
    const renamed = uniqueName('dormant');
    const during = await expectConsistent(
      cast.member,
      async () => {
        assertSuccess(await cast.member.patch(`/api/v1/user_groups/${id}`, { name: renamed }));
        assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/members`, { add: [cast.admin.id] }));
      },
      o,
    );
    assert.is(during.length, includeDeactivated ? 2 : 0);
    const on = await expectConsistent(
      cast.member,
      async () => assertSuccess(await cast.member.patch(`/api/v1/user_groups/${id}`, { deactivated: false, description: 'back' })),
      o,
    );
    assert.equal(on.map((e) => e.op), includeDeactivated ? ['update', 'update'] : ['add', 'update']);
    const g = (await group(cast.member, id))!;
    assert.is(g.deactivated, false);
    assert.is(g.name, renamed);
    assert.equal(g.members, [other.id, cast.admin.id].sort((a, b) => a - b));
  });
}

deactivate('deactivated=true through PATCH changes nothing; errors', async () => {
  const id = await createGroup(cast.member);
  assertSuccess(await cast.member.patch(`/api/v1/user_groups/${id}`, { deactivated: true }));
  assert.is((await group(cast.member, id))!.deactivated, false);
  assertSuccess(await cast.member.post(`/api/v1/user_groups/${id}/deactivate`));
  assertError(await cast.member.post(`/api/v1/user_groups/${id}/deactivate`), 'User group is already deactivated.');
  assertError(await cast.member.post('/api/v1/user_groups/999999/deactivate'), 'Invalid user group');
  assertError(await cast.owner.post(`/api/v1/user_groups/${systemGroup(realm, 'role:moderators')}/deactivate`), 'Insufficient permission');
  // A deactivated group cannot be a setting value.
  const g2 = await createGroup(cast.member);
  assertError(await cast.member.patch(`/api/v1/user_groups/${g2}`, { can_mention_group: { new: id } }), 'User group is deactivated.');
});

deactivate('permission by role', async () => {
  const expected: Record<string, string | null> = {
    owner: null,
    admin: 'Insufficient permission',
    moderator: 'Insufficient permission',
    member: null,
    guest: 'Not allowed for guest users',
    bot: 'Insufficient permission',
  };
  for (const role of ROLE_NAMES) {
    const id = await createGroup(cast.member);
    const res = await cast[role].post(`/api/v1/user_groups/${id}/deactivate`);
    if (expected[role] === null) assertSuccess(res);
    else assertError(res, expected[role]!);
  }
});

deactivate('a group in use cannot be deactivated: objections name every use', async () => {
  const used = await createGroup(cast.member);
  const byGroup = await createGroup(cast.member, { can_mention_group: used });
  const byAnon = await createGroup(cast.member, { can_manage_group: { direct_members: [cast.member.id], direct_subgroups: [used] } });
  const supergroup = await createGroup(cast.member, { subgroups: [used] });
  assertSuccess(
    await cast.owner.post('/api/v1/users/me/subscriptions', {
      subscriptions: [{ name: 'guarded' }],
      can_administer_channel_group: { direct_members: [cast.owner.id], direct_subgroups: [used] },
    }),
  );
  const channel = assertSuccess(await cast.owner.get('/api/v1/get_stream_id', { stream: 'guarded' })).stream_id as number;
  await setRealmGroupSetting(realm, 'can_create_groups', used);
  try {
    const res = assertError(await cast.member.post(`/api/v1/user_groups/${used}/deactivate`), 'Cannot deactivate user group in use.', 400, 'CANNOT_DEACTIVATE_GROUP_IN_USE');
    assert.equal(res.objections, [
      { type: 'realm', settings: ['can_create_groups'] },
      { type: 'channel', channel_id: channel, settings: ['can_administer_channel_group'] },
      { type: 'user_group', group_id: byGroup, settings: ['can_mention_group'] },
      { type: 'user_group', group_id: byAnon, settings: ['can_manage_group'] },
      { type: 'subgroup', supergroup_ids: [supergroup] },
    ]);
  } finally {
    await realm.setGroupSetting('can_create_groups', 'role:members');
  }
  // Once nothing uses it, it can go (archived channels do not count).
  assertSuccess(await cast.owner.delete(`/api/v1/streams/${channel}`));
  for (const g of [byGroup, byAnon, supergroup]) assertSuccess(await cast.member.post(`/api/v1/user_groups/${g}/deactivate`));
  assertSuccess(await cast.member.post(`/api/v1/user_groups/${used}/deactivate`));
});

deactivate.after(async () => {
  await server.close();
});

create.run();
list.run();
update.run();
deactivate.run();
