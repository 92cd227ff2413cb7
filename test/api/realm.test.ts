// The organization: PATCH /realm (scalar and group-valued settings, owner-only ones),
// PATCH /realm/user_settings_defaults, and allowed domains (endpoint 19 and its siblings).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { expectConsistent } from '../helpers/consistency.js';
import { everyRole } from '../helpers/people.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let admin: TestUser;
let moderator: TestUser;
let member: TestUser;
let guest: TestUser;
let bot: TestUser;

const types = ['realm'];
const group = (name: string) => realm.handle.state.systemGroupId(name as never);

const settings = suite('PATCH /realm');
settings.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  ({ admin, moderator, member, guest, bot } = await everyRole(realm));
});

settings('administrators only; some settings need an owner', async () => {
  for (const u of [moderator, member, guest, bot]) {
    assertError(await u.patch('/api/v1/realm', { allow_message_editing: false }), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
  }
  for (const [k, v] of [
    ['invite_required', false],
    ['waiting_period_threshold', 3],
    ['emails_restricted_to_domains', true],
    ['disallow_disposable_email_addresses', false],
    ['message_retention_days', 30],
    ['can_invite_users_group', group('role:administrators')],
  ] as const) {
    assertError(await admin.patch('/api/v1/realm', { [k]: v }), 'Must be an organization owner', 400, 'UNAUTHORIZED_PRINCIPAL');
  }
  assertSuccess(await realm.owner.patch('/api/v1/realm', { invite_required: false, waiting_period_threshold: 3 }));
  assert.is(realm.handle.state.realm.settings.waiting_period_threshold, 3);
});

settings('Welcome Bot sends an administrator a test of the custom welcome text', async () => {
  const test = (u: TestUser, text: string) => u.post('/api/v1/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: text });
  for (const u of [moderator, member, guest, bot]) assertError(await test(u, 'Hi!'), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
  for (const u of [admin, realm.owner]) {
    const id = assertSuccess(await test(u, 'Welcome to **the team**!')).message_id as number;
    const m = assertSuccess(await u.get(`/api/v1/messages/${id}`, { apply_markdown: false })).message;
    assert.is(m.sender_full_name, 'Welcome Bot');
    assert.is(m.content, 'Welcome to **the team**!');
    assert.equal((m.display_recipient as Array<{ id: number }>).map((r) => r.id).includes(u.id), true, 'to the administrator');
  }
  assertError(await test(admin, '  '), 'Message must not be empty');
  assertError(await test(admin, 'x'.repeat(8001)), 'welcome_message_custom_text is too long (limit: 8000 characters)');
  assert.is(realm.handle.state.realm.settings.welcome_message_custom_text, '', 'a test changes no setting');
});

settings('editing, moving and resolving settings and time limits', async () => {
  const events = await expectConsistent(
    member,
    async () => {
      const body = assertSuccess(
        await admin.patch('/api/v1/realm', {
          allow_message_editing: false,
          message_content_edit_limit_seconds: 'unlimited',
          move_messages_within_stream_limit_seconds: 3600,
          move_messages_between_streams_limit_seconds: 7200,
          message_edit_history_visibility_policy: 'moves',
          can_resolve_topics_group: group('role:members'),
          can_move_messages_between_topics_group: { new: group('role:moderators') },
          can_move_messages_between_channels_group: { new: { direct_members: [member.id], direct_subgroups: [group('role:administrators')] } },
        }),
      );
      assert.is(body.message_content_edit_limit_seconds, null);
      assert.is(body.move_messages_within_stream_limit_seconds, 3600);
    },
    { types },
  );
  assert.ok(events.some((e) => e.op === 'update' && e.property === 'message_content_edit_limit_seconds' && e.value === null));
  const dict = events.find((e) => e.op === 'update_dict')!;
  assert.equal(dict.data, {
    can_resolve_topics_group: group('role:members'),
    can_move_messages_between_topics_group: group('role:moderators'),
    can_move_messages_between_channels_group: { direct_members: [member.id], direct_subgroups: [group('role:administrators')] },
  });
  const r = assertSuccess(await member.post('/api/v1/register', { fetch_event_types: ['realm'] }));
  assert.is(r.realm_allow_message_editing, false);
  assert.is(r.realm_message_content_edit_limit_seconds, null);
  assert.equal(r.realm_can_move_messages_between_channels_group, dict.data.can_move_messages_between_channels_group);
  assertError(await admin.patch('/api/v1/realm', { message_content_edit_limit_seconds: 0 }), "Bad value for 'message_content_edit_limit_seconds': 0");
  assertError(await admin.patch('/api/v1/realm', { message_content_edit_limit_seconds: 'forever' }), "Bad value for 'message_content_edit_limit_seconds': forever");
  assertError(await admin.patch('/api/v1/realm', { message_edit_history_visibility_policy: 'some' }), 'Invalid message_edit_history_visibility_policy');
  // Nothing changed: no events.
  assert.equal(await expectConsistent(member, () => admin.patch('/api/v1/realm', { allow_message_editing: false }), { types }), []);
});

settings('topics: realm_topics_policy and realm_empty_topic_display_name', async () => {
  await expectConsistent(
    member,
    () => admin.patch('/api/v1/realm', { topics_policy: 'disable_empty_topic', empty_topic_display_name: 'no topic here' }),
    { types },
  );
  const r = assertSuccess(await member.post('/api/v1/register', { fetch_event_types: [] }));
  assert.is(r.realm_topics_policy, 'disable_empty_topic');
  assert.is(r.realm_empty_topic_display_name, 'no topic here');
  assertError(await admin.patch('/api/v1/realm', { topics_policy: 'inherit' }), 'Invalid topics_policy');
  assertError(await admin.patch('/api/v1/realm', { empty_topic_display_name: ' ' }), 'empty_topic_display_name cannot be blank');
});

settings('name, description and public access', async () => {
  await expectConsistent(member, () => admin.patch('/api/v1/realm', { name: 'Renamed Org', description: 'We **build** things' }), { types });
  const s = assertSuccess(await server.request('GET', '/api/v1/server_settings', {}, { host: realm.host }));
  assert.is(s.realm_name, 'Renamed Org');
  assert.is(s.realm_description, '<p>We <strong>build</strong> things</p>');
  assertError(await admin.patch('/api/v1/realm', { name: 'x'.repeat(41) }), 'name is too long (limit: 40 characters)');
  await expectConsistent(member, () => admin.patch('/api/v1/realm', { enable_spectator_access: true }), { types });
  assertSuccess(await realm.anonymous('GET', '/api/v1/users'));
  assertSuccess(await admin.patch('/api/v1/realm', { enable_spectator_access: false }));
  assertError(await realm.anonymous('GET', '/api/v1/users'), 'Not logged in: API authentication or user session required', 401);
});

settings('group-valued settings: both forms, old values, and what each accepts', async () => {
  const setting = 'can_create_groups';
  const current = realm.handle.state.realm.settings.groups[setting]!;
  assertError(
    await admin.patch('/api/v1/realm', { [setting]: { new: group('role:moderators'), old: group('role:owners') } }),
    "'old' value does not match the expected value.",
  );
  assertSuccess(await admin.patch('/api/v1/realm', { [setting]: { new: group('role:moderators'), old: current } }));
  assertError(await admin.patch('/api/v1/realm', { [setting]: 999999 }), 'Invalid user group ID: 999999');
  assertError(await admin.patch('/api/v1/realm', { [setting]: group('role:internet') }), "'can_create_groups' setting cannot be set to 'role:internet' group.");
  assertError(await admin.patch('/api/v1/realm', { [setting]: { direct_members: [999999], direct_subgroups: [] } }), 'Invalid user ID: 999999');
  assertError(await admin.patch('/api/v1/realm', { [setting]: 'x' }), 'Argument "can_create_groups" is not valid JSON.');
  assertError(
    await admin.patch('/api/v1/realm', { can_access_all_users_group: group('role:moderators') }),
    "'can_access_all_users_group' setting cannot be set to 'role:moderators' group.",
  );
  assertError(
    await admin.patch('/api/v1/realm', { can_access_all_users_group: { direct_members: [member.id], direct_subgroups: [] } }),
    "'can_access_all_users_group' must be a system user group.",
  );
  await expectConsistent(guest, () => admin.patch('/api/v1/realm', { can_access_all_users_group: group('role:members') }), { types });
  assertError(await guest.get(`/api/v1/users/${member.id}`), 'Insufficient permission');
  assertSuccess(await admin.patch('/api/v1/realm', { can_access_all_users_group: group('role:everyone') }));
  assertSuccess(await guest.get(`/api/v1/users/${member.id}`));
});

settings('new accounts take the organization defaults of personal settings', async () => {
  for (const u of [moderator, member]) {
    assertError(await u.patch('/api/v1/realm/user_settings_defaults', { email_address_visibility: 3 }), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
  }
  assertError(await admin.patch('/api/v1/realm/user_settings_defaults', { email_address_visibility: 9 }), 'Invalid email_address_visibility');
  await expectConsistent(
    member,
    () => admin.patch('/api/v1/realm/user_settings_defaults', { email_address_visibility: 3, twenty_four_hour_time: true }),
    { types: ['realm_user_settings_defaults'] },
  );
  const r = assertSuccess(await member.post('/api/v1/register', { fetch_event_types: ['realm_user_settings_defaults'] }));
  assert.is(r.realm_user_settings_defaults.email_address_visibility, 3);
  assert.is(r.realm_user_settings_defaults.color_scheme, 1);
  const fresh = await realm.createUser({ email: 'fresh@example.com' });
  assert.is(fresh.email, `user${fresh.id}@${realm.host}`);
  const seen = assertSuccess(await member.get(`/api/v1/users/${fresh.id}`)).user;
  assert.is(seen.delivery_email, null);
  assert.is(assertSuccess(await admin.get(`/api/v1/users/${fresh.id}`)).user.delivery_email, 'fresh@example.com');
  const newBot = await realm.createUser({ bot: true, botOwnerId: member.id });
  assert.match(newBot.email, /-bot@/, 'bots always show their address');
  await admin.patch('/api/v1/realm/user_settings_defaults', { email_address_visibility: 1 });
});

// ---------------------------------------------------------------------------------------------
const domains = suite('allowed domains');
const dtypes = { types: ['realm_domains', 'realm'] };

domains('owners only change them; everyone reads them', async () => {
  for (const u of [admin, moderator, member, guest]) {
    assertError(await u.post('/api/v1/realm/domains', { domain: 'x.test', allow_subdomains: false }), 'Must be an organization owner', 400, 'UNAUTHORIZED_PRINCIPAL');
    assertError(await u.patch('/api/v1/realm/domains/x.test', { allow_subdomains: true }), 'Must be an organization owner', 400, 'UNAUTHORIZED_PRINCIPAL');
    assertError(await u.delete('/api/v1/realm/domains/x.test'), 'Must be an organization owner', 400, 'UNAUTHORIZED_PRINCIPAL');
  }
  assert.equal(assertSuccess(await member.get('/api/v1/realm/domains')).domains, []);
});

domains('add, update (endpoint 19) and remove, with events', async () => {
  let created: Record<string, unknown> = {};
  await expectConsistent(member, async () => {
    created = assertSuccess(await realm.owner.post('/api/v1/realm/domains', { domain: ' Example.COM ', allow_subdomains: false }));
  }, dtypes);
  assert.is((created.new_domain as unknown[])[1], 'example.com');
  assertError(await realm.owner.post('/api/v1/realm/domains', { domain: 'example.com', allow_subdomains: true }), 'The domain example.com is already a part of your organization.');
  await expectConsistent(member, () => realm.owner.patch('/api/v1/realm/domains/example.com', { allow_subdomains: true }), dtypes);
  assert.equal(assertSuccess(await member.get('/api/v1/realm/domains')).domains, [{ domain: 'example.com', allow_subdomains: true }]);
  assertError(await realm.owner.patch('/api/v1/realm/domains/nope.test', { allow_subdomains: true }), 'No entry found for domain: nope.test.');
  assertError(await realm.owner.patch('/api/v1/realm/domains/example.com', {}), "Missing 'allow_subdomains' argument");
  assertError(await realm.owner.delete('/api/v1/realm/domains/nope.test'), 'No entry found for domain: nope.test.');
});

domains('invalid domains', async () => {
  const add = (domain: string) => realm.owner.post('/api/v1/realm/domains', { domain, allow_subdomains: false });
  assertError(await add(''), "Invalid domain: Domain can't be empty.");
  assertError(await add('localhost'), 'Invalid domain: Domain must have at least one dot (.)');
  assertError(await add('.example.org'), 'Invalid domain: Domain cannot start or end with a dot (.)');
  assertError(await add('a..b'), "Invalid domain: Consecutive '.' are not allowed.");
  assertError(await add('-a.b'), "Invalid domain: Subdomains cannot start or end with a '-'.");
  assertError(await add('a_b.c'), "Invalid domain: Domain can only have letters, numbers, '.' and '-'s.");
});

domains('restricted sign-ups, and removing the last domain lifts the restriction', async () => {
  await realm.owner.patch('/api/v1/realm', { emails_restricted_to_domains: true });
  await realm.handle.ask('user.setSpecialPermissions', { userId: realm.owner.id, canCreateUsers: true });
  const create = (email: string) => realm.owner.post('/api/v1/users', { email, password: 'long enough', full_name: email });
  assertError(await create('someone@elsewhere.org'), "Email 'someone@elsewhere.org' not allowed in this organization");
  assertSuccess(await create('someone@example.com'));
  assertSuccess(await create('someone@eng.example.com'));
  const events = await expectConsistent(member, () => realm.owner.delete('/api/v1/realm/domains/example.com'), dtypes);
  assert.ok(events.some((e) => e.type === 'realm' && e.property === 'emails_restricted_to_domains' && e.value === false));
  assertSuccess(await create('someone@elsewhere.org'));
});

domains.after(async () => {
  await server.close();
});

settings.run();
domains.run();
