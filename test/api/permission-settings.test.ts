// server_supported_permission_settings in POST /register: for every group-valued setting of the
// organization, a channel and a user group, the system groups it offers are exactly those the
// server accepts, and its default is what a new organization, channel or group starts with.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SYSTEM_GROUPS, type SystemGroupName } from '../../src/domain/system-groups.js';
import { assertSuccess } from '../helpers/assert.js';
import { createChannel } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer } from '../helpers/server.js';

interface PermissionSetting {
  require_system_group: boolean;
  allow_internet_group: boolean;
  allow_nobody_group: boolean;
  allow_everyone_group: boolean;
  default_group_name: string;
  default_for_system_groups: string | null;
  allowed_system_groups: string[];
}
type Settings = Record<'realm' | 'stream' | 'group', Record<string, PermissionSetting>>;

let server: TestServer;
let realm: TestRealm;
let settings: Settings;
let registered: Record<string, unknown>;

/** What the metadata offers, read as the reference tells clients to read it. */
function offers(s: PermissionSetting, g: SystemGroupName): boolean {
  if (s.allowed_system_groups.length > 0) return s.allowed_system_groups.includes(g);
  if (g === 'role:internet') return s.allow_internet_group;
  if (g === 'role:everyone') return s.allow_everyone_group;
  if (g === 'role:nobody') return s.allow_nobody_group;
  return true;
}

const groupId = (g: string) => realm.handle.state.systemGroupId(g as SystemGroupName);

const t = suite('server_supported_permission_settings');
t.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  registered = assertSuccess(await realm.owner.post('/api/v1/register', { fetch_event_types: ['realm'] }));
  settings = registered.server_supported_permission_settings as Settings;
});

t('lists every group-valued setting of the organization, a channel and a group', () => {
  const realmSettings = Object.keys(registered).filter((k) => k.startsWith('realm_can_') || k === 'realm_create_multiuse_invite_group' || k.startsWith('realm_direct_message_'));
  assert.equal(Object.keys(settings.realm).map((k) => `realm_${k}`).sort(), realmSettings.filter((k) => typeof registered[k] !== 'boolean').sort());
  assert.is(Object.keys(settings.stream).length, 11);
  assert.is(Object.keys(settings.group).length, 6);
  assert.equal(settings.realm.can_access_all_users_group!.allowed_system_groups, ['role:members', 'role:everyone']);
  assert.is(settings.realm.can_access_all_users_group!.require_system_group, true);
  assert.equal(settings.group.can_manage_group, {
    require_system_group: false,
    allow_internet_group: false,
    allow_nobody_group: true,
    allow_everyone_group: false,
    default_group_name: 'group_creator',
    default_for_system_groups: 'role:nobody',
    allowed_system_groups: [],
  });
});

t('a new organization starts at each default', () => {
  for (const [name, s] of Object.entries(settings.realm)) assert.is(registered[`realm_${name}`], groupId(s.default_group_name), name);
});

t('a new channel and a new group start at each default', async () => {
  const id = await createChannel(realm.owner, 'defaults');
  const stream = assertSuccess(await realm.owner.get(`/api/v1/streams/${id}`)).stream as Record<string, unknown>;
  for (const [name, s] of Object.entries(settings.stream)) {
    const expected = s.default_group_name === 'channel_creator' ? { direct_members: [realm.owner.id], direct_subgroups: [] } : groupId(s.default_group_name);
    assert.equal(stream[name], expected, name);
  }
  const gid = assertSuccess(await realm.owner.post('/api/v1/user_groups/create', { name: 'defaults', description: '', members: [] })).group_id as number;
  const group = (assertSuccess(await realm.owner.get('/api/v1/user_groups')).user_groups as Array<Record<string, unknown>>).find((g) => g.id === gid)!;
  for (const [name, s] of Object.entries(settings.group)) {
    const expected = s.default_group_name === 'group_creator' ? { direct_members: [realm.owner.id], direct_subgroups: [] } : groupId(s.default_group_name);
    assert.equal(group[name], expected, name);
  }
});

t('each setting accepts exactly the system groups it offers', async () => {
  const owner = realm.owner;
  const channel = await createChannel(owner, 'offers');
  const gid = assertSuccess(await owner.post('/api/v1/user_groups/create', { name: 'offers', description: '', members: [] })).group_id as number;
  const wrong: string[] = [];
  for (const { name: g } of SYSTEM_GROUPS) {
    for (const [name, s] of Object.entries(settings.realm)) {
      const before = realm.handle.state.realm.settings.groups[name]!;
      const r = await owner.patch('/api/v1/realm', { [name]: groupId(g) });
      if ((r.status === 200) !== offers(s, g)) wrong.push(`realm ${name} = ${g}: ${r.status} ${r.json.msg}`);
      if (r.status === 200) assertSuccess(await owner.patch('/api/v1/realm', { [name]: before }));
    }
    for (const [name, s] of Object.entries(settings.stream)) {
      const r = await owner.patch(`/api/v1/streams/${channel}`, { [name]: { new: groupId(g) } });
      if ((r.status === 200) !== offers(s, g)) wrong.push(`stream ${name} = ${g}: ${r.status} ${r.json.msg}`);
    }
    for (const [name, s] of Object.entries(settings.group)) {
      const r = await owner.patch(`/api/v1/user_groups/${gid}`, { [name]: { new: groupId(g) } });
      if ((r.status === 200) !== offers(s, g)) wrong.push(`group ${name} = ${g}: ${r.status} ${r.json.msg}`);
    }
  }
  assert.equal(wrong, []);
});

t.after(async () => {
  await server.close();
});

t.run();
