// Invitations: POST /invites/multiuse (endpoint 10: every parameter and permission rule, roles
// equal or stricter), GET /invites, DELETE /invites/multiuse/{id}, the invites_changed event, and
// the sign-up page end to end (account with the invited role, groups and channels; expired and
// revoked links refused).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sql } from 'slonik';
import { z } from 'zod';
import { ManualClock } from '../../src/clock.js';
import { Role } from '../../src/domain/roles.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { oneOfEachRole, ROLE_NAMES, type OneOfEachRole, type RoleName } from '../helpers/roles.js';
import { systemGroup } from '../helpers/groups.js';
import { drainEvents, expectConsistent } from '../helpers/consistency.js';
import { topicLog, welcomeMessagesTo } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

const clock = new ManualClock(Date.now());
let server: TestServer;
let realm: TestRealm;
let cast: OneOfEachRole;

const invite = (by: TestUser, params: Record<string, unknown> = {}) => by.post('/api/v1/invites/multiuse', params as never);
const keyOf = (link: string) => /\/join\/([A-Za-z0-9]+)\/$/.exec(link)![1]!;

async function listInvites(by: TestUser): Promise<Record<string, any>[]> {
  return assertSuccess(await by.get('/api/v1/invites')).invites;
}

/** A channel made by the owner (who is subscribed), through the API. */
async function createChannel(name: string, o: { private?: boolean; isDefault?: boolean } = {}): Promise<number> {
  assertSuccess(await realm.owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name }], invite_only: o.private ?? false }));
  const id = assertSuccess(await realm.owner.get('/api/v1/get_stream_id', { stream: name })).stream_id as number;
  if (o.isDefault) assertSuccess(await realm.owner.post('/api/v1/default_streams', { stream_id: id }));
  return id;
}

const setup = async () => {
  server ??= await startTestServer({ clock });
  realm ??= await server.createRealm();
  cast ??= await oneOfEachRole(realm, { botOwner: 'member' });
};

const create = suite('POST /invites/multiuse');
create.before(setup);

create('returns a link to the sign-up page; GET /invites lists it with the default expiry', async () => {
  const r = assertSuccess(await invite(cast.admin));
  assert.match(r.invite_link, new RegExp(`^${realm.handle.state.realm.url}/join/[A-Za-z0-9]{24}/$`));
  const listed = (await listInvites(cast.admin)).find((i) => i.link_url === r.invite_link)!;
  const now = Math.floor(clock.now() / 1000);
  assert.equal(listed, {
    id: listed.id,
    invited_by_user_id: cast.admin.id,
    invited: now,
    expiry_date: now + 14400 * 60,
    invited_as: Role.member,
    is_multiuse: true,
    notify_referrer_on_join: false,
    link_url: r.invite_link,
  });
});

create('invite_expires_in_minutes: a number, or null for never', async () => {
  const never = assertSuccess(await invite(cast.admin, { invite_expires_in_minutes: null })).invite_link;
  const hour = assertSuccess(await invite(cast.admin, { invite_expires_in_minutes: 60 })).invite_link;
  const list = await listInvites(cast.admin);
  assert.is(list.find((i) => i.link_url === never)!.expiry_date, null);
  assert.is(list.find((i) => i.link_url === hour)!.expiry_date, Math.floor(clock.now() / 1000) + 3600);
  assertError(await invite(cast.admin, { invite_expires_in_minutes: 0 }), 'invite_expires_in_minutes is too small');
  assertError(await invite(cast.admin, { invite_expires_in_minutes: 9.06e74 }), 'invite_expires_in_minutes is too large');
  assertError(await invite(cast.admin, { invite_expires_in_minutes: 'soon' }), 'Argument "invite_expires_in_minutes" is not valid JSON.');
  assertError(await invite(cast.admin, { invite_as: 500 }), 'Invalid invite_as');
});

create('who may create links: create_multiuse_invite_group (administrators by default), by role', async () => {
  const expected: Record<RoleName, string | null> = {
    owner: null,
    admin: null,
    moderator: 'Insufficient permission',
    member: 'Insufficient permission',
    guest: 'Not allowed for guest users',
    bot: 'This endpoint does not accept bot requests.',
  };
  for (const role of ROLE_NAMES) {
    const res = await invite(cast[role], { invite_as: Role.guest });
    if (expected[role] === null) assertSuccess(res);
    else assertError(res, expected[role]!);
  }
});

create('invited role must be equal or stricter than the caller’s', async () => {
  await realm.setGroupSetting('create_multiuse_invite_group', 'role:members');
  try {
    const callers: Array<[RoleName, number]> = [
      ['owner', Role.owner],
      ['admin', Role.administrator],
      ['moderator', Role.moderator],
      ['member', Role.member],
    ];
    for (const [role, code] of callers) {
      for (const inviteAs of [Role.owner, Role.administrator, Role.moderator, Role.member, Role.guest]) {
        const res = await invite(cast[role], { invite_as: inviteAs });
        if (inviteAs >= code) assertSuccess(res);
        else assertError(res, 'Insufficient permission');
      }
    }
  } finally {
    await realm.setGroupSetting('create_multiuse_invite_group', 'role:administrators');
  }
});

create('welcome_message_custom_text: administrators only, at most 8000 code points', async () => {
  const textOf = async (link: string) =>
    server.db.pool.oneFirst(sql.type(z.object({ t: z.string().nullable() }))`
      SELECT welcome_message_custom_text AS t FROM invitations WHERE key = ${keyOf(link)}`);
  const fromAdmin = assertSuccess(await invite(cast.admin, { welcome_message_custom_text: 'Welcome, **friend**!' })).invite_link;
  assert.is(await textOf(fromAdmin), 'Welcome, **friend**!');
  assert.is(await textOf(assertSuccess(await invite(cast.admin, { welcome_message_custom_text: '' })).invite_link), '');
  assert.is(await textOf(assertSuccess(await invite(cast.admin, { welcome_message_custom_text: 'null' })).invite_link), null);
  // 8000 astral code points are 16000 UTF-16 units: the limit counts code points.
  assertSuccess(await invite(cast.admin, { welcome_message_custom_text: '😀'.repeat(8000) }));
  assertError(
    await invite(cast.admin, { welcome_message_custom_text: 'x'.repeat(8001) }),
    'welcome_message_custom_text is too long (limit: 8000 characters)',
  );
  await realm.setGroupSetting('create_multiuse_invite_group', 'role:moderators');
  try {
    const fromModerator = assertSuccess(await invite(cast.moderator, { welcome_message_custom_text: 'Hi' })).invite_link;
    assert.is(await textOf(fromModerator), null);
  } finally {
    await realm.setGroupSetting('create_multiuse_invite_group', 'role:administrators');
  }
});

create('stream_ids: each must exist and be visible; naming any needs permission to subscribe others', async () => {
  const open = await createChannel('open-house');
  const secret = await createChannel('secret', { private: true });
  assertError(await invite(cast.admin, { stream_ids: [999999] }), 'Invalid channel ID 999999. No invites were sent.');
  assertError(await invite(cast.admin, { stream_ids: [open, secret] }), `Invalid channel ID ${secret}. No invites were sent.`);
  assertSuccess(await invite(cast.owner, { stream_ids: [open, secret] }));
  await realm.setGroupSetting('can_add_subscribers_group', 'role:owners');
  try {
    assertError(await invite(cast.admin, { stream_ids: [open] }), 'You do not have permission to subscribe other users to channels.');
    // Default channels can always be included through the flag.
    assertSuccess(await invite(cast.admin, { stream_ids: [], include_realm_default_subscriptions: true }));
  } finally {
    await realm.setGroupSetting('can_add_subscribers_group', 'role:members');
  }
  assertError(await invite(cast.admin, { stream_ids: ['x'] }), 'stream_ids[0] is not an integer');
});

create('group_ids: the inviter must be allowed to add members', async () => {
  const mine = assertSuccess(await cast.admin.post('/api/v1/user_groups/create', { name: 'admins-pick', description: '', members: [] })).group_id;
  const theirs = assertSuccess(await cast.member.post('/api/v1/user_groups/create', { name: 'members-own', description: '', members: [] })).group_id;
  assertSuccess(await invite(cast.admin, { group_ids: [mine] }));
  assertError(await invite(cast.admin, { group_ids: [theirs] }), 'Insufficient permission');
  assertError(await invite(cast.admin, { group_ids: [systemGroup(realm, 'role:moderators')] }), 'Insufficient permission');
  assertError(await invite(cast.admin, { group_ids: [999999] }), 'Invalid user group ID: 999999');
  // Owners manage every group (can_manage_all_groups).
  assertSuccess(await invite(cast.owner, { group_ids: [theirs] }));
});

create('invites_changed reaches administrators and the inviter', async () => {
  await realm.setGroupSetting('create_multiuse_invite_group', 'role:members');
  try {
    const events = await expectConsistent(cast.admin, async () => assertSuccess(await invite(cast.member)), { types: ['invites_changed'] });
    assert.equal(events.map((e) => e.type), ['invites_changed']);
    const q = assertSuccess(await cast.moderator.post('/api/v1/register', { event_types: ['invites_changed'] }));
    assertSuccess(await invite(cast.member));
    assert.equal(await drainEvents(cast.moderator, q.queue_id), []);
  } finally {
    await realm.setGroupSetting('create_multiuse_invite_group', 'role:administrators');
  }
});

const manage = suite('GET /invites and DELETE /invites/multiuse/{id}');
manage.before(setup);

manage('administrators see every link, others their own; owner links only for owners; expired and revoked are gone', async () => {
  await realm.setGroupSetting('create_multiuse_invite_group', 'role:members');
  try {
    const byMember = assertSuccess(await invite(cast.member)).invite_link;
    const byOwner = assertSuccess(await invite(cast.owner, { invite_as: Role.owner })).invite_link;
    const soon = assertSuccess(await invite(cast.member, { invite_expires_in_minutes: 1 })).invite_link;
    const links = async (u: TestUser) => (await listInvites(u)).map((i) => i.link_url);
    assert.ok((await links(cast.admin)).includes(byMember));
    assert.not.ok((await links(cast.admin)).includes(byOwner));
    assert.ok((await links(cast.owner)).includes(byOwner));
    assert.ok((await links(cast.member)).includes(byMember));
    assert.ok((await links(cast.member)).every((l) => !l.includes(keyOf(byOwner))));
    assert.not.ok((await links(cast.moderator)).includes(byMember));
    assert.ok((await links(cast.member)).includes(soon));
    clock.advance(61_000);
    assert.not.ok((await links(cast.member)).includes(soon));
    assertError(await cast.guest.get('/api/v1/invites'), 'Not allowed for guest users');
    assertError(await cast.bot.get('/api/v1/invites'), 'This endpoint does not accept bot requests.');
  } finally {
    await realm.setGroupSetting('create_multiuse_invite_group', 'role:administrators');
  }
});

manage('revoke: the inviter or an administrator; owner links need an owner', async () => {
  await realm.setGroupSetting('create_multiuse_invite_group', 'role:members');
  try {
    const idOf = async (link: string) => (await listInvites(cast.owner)).find((i) => i.link_url === link)!.id as number;
    const a = await idOf(assertSuccess(await invite(cast.member)).invite_link);
    assertError(await cast.moderator.delete(`/api/v1/invites/multiuse/${a}`), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
    const events = await expectConsistent(cast.admin, async () => assertSuccess(await cast.member.delete(`/api/v1/invites/multiuse/${a}`)), {
      types: ['invites_changed'],
    });
    assert.is(events.length, 1);
    assertError(await cast.member.delete(`/api/v1/invites/multiuse/${a}`), 'Invitation has already been revoked');
    const b = await idOf(assertSuccess(await invite(cast.member)).invite_link);
    assertSuccess(await cast.admin.delete(`/api/v1/invites/multiuse/${b}`));
    const c = await idOf(assertSuccess(await invite(cast.owner, { invite_as: Role.owner })).invite_link);
    assertError(await cast.admin.delete(`/api/v1/invites/multiuse/${c}`), 'Must be an organization owner');
    assertSuccess(await cast.owner.delete(`/api/v1/invites/multiuse/${c}`));
    assertError(await cast.admin.delete('/api/v1/invites/multiuse/999999'), 'No such invitation');
    assertError(await cast.guest.delete(`/api/v1/invites/multiuse/${c}`), 'Not allowed for guest users');
  } finally {
    await realm.setGroupSetting('create_multiuse_invite_group', 'role:administrators');
  }
});

const signup = suite('sign-up through an invitation link');
signup.before(setup);

const page = (link: string, method = 'GET', form: Record<string, string> = {}) => {
  const path = new URL(link).pathname;
  return realm.anonymous(method, path, form);
};

signup('the link opens a form; signing up creates the account with the invited role, groups and channels', async () => {
  const group = assertSuccess(await cast.owner.post('/api/v1/user_groups/create', { name: 'newcomers', description: '', members: [] })).group_id;
  const chosen = await createChannel('welcome-wagon');
  const byDefault = await createChannel('announcements', { isDefault: true });
  const ignored = await createChannel('elsewhere', { isDefault: false });
  const link = assertSuccess(
    await invite(cast.owner, { invite_as: Role.moderator, group_ids: [group], stream_ids: [chosen], include_realm_default_subscriptions: true }),
  ).invite_link;

  const form = await page(link);
  assert.is(form.status, 200);
  assert.match(form.headers['Content-Type'] ?? form.headers['content-type'] ?? '', /text\/html/);
  assert.match(form.text, /<form method="post" action="\/join\/[A-Za-z0-9]+\/">/);
  assert.match(form.text, /name="password"/);

  let done: Awaited<ReturnType<typeof page>> | undefined;
  const events = await expectConsistent(
    cast.member,
    async () => {
      done = await page(link, 'POST', { email: 'newbie@example.com', full_name: 'Nia Newbie', password: 'correct horse' });
    },
    { types: ['realm_user', 'user_group', 'subscription'] },
  );
  assert.is(done!.status, 200, done!.text);
  assert.match(done!.text, /newbie@example\.com/);

  const user = realm.handle.state.userByDeliveryEmail('newbie@example.com')!;
  assert.is(user.role, Role.moderator);
  assert.is(user.full_name, 'Nia Newbie');
  assert.ok(realm.handle.state.groups.get(group)!.members.has(user.id));
  assert.equal(events[0]!.op, 'add');
  assert.ok(events.some((e) => e.op === 'add_members' && e.group_id === group));
  const subscribed = await server.db.pool.anyFirst(sql.type(z.object({ c: z.number() }))`
    SELECT channel_id AS c FROM subscriptions WHERE user_id = ${user.id} AND active ORDER BY channel_id`);
  assert.equal(subscribed, [chosen, byDefault].sort((a, b) => a - b));
  assert.not.ok(subscribed.includes(ignored));
  // The password works for clients.
  const key = assertSuccess(await realm.anonymous('POST', '/api/v1/fetch_api_key', { username: 'newbie@example.com', password: 'correct horse' }));
  assert.is(key.user_id, user.id);
  // A reusable link serves more than one person and counts its uses.
  assert.is((await page(link, 'POST', { email: 'second@example.com', full_name: 'Sam Second', password: 'another one' })).status, 200);
  const used = await server.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT used_count AS n FROM invitations WHERE key = ${keyOf(link)}`);
  assert.is(used, 2);
});

signup('Welcome Bot sends the invitation’s text, or the organization’s; empty means no message', async () => {
  const welcomeOf = (email: string) => welcomeMessagesTo(server, realm.handle.state.userByDeliveryEmail(email)!.id);
  const signUp = async (link: string, email: string) =>
    assert.is((await page(link, 'POST', { email, full_name: email.split('@')[0]!, password: 'welcome1' })).status, 200);
  await signUp(assertSuccess(await invite(cast.admin, { welcome_message_custom_text: 'Hello from **us**!' })).invite_link, 'greeted@example.com');
  assert.equal(await welcomeOf('greeted@example.com'), ['Hello from **us**!']);
  // With a sign-up announcements channel, Notification Bot names each newcomer there.
  const signups = await createChannel('invite-signups');
  await realm.updateSettings({ signup_announcements_stream_id: signups });
  try {
    await signUp(assertSuccess(await invite(cast.admin)).invite_link, 'announced@example.com');
    const announced = realm.handle.state.userByDeliveryEmail('announced@example.com')!;
    assert.equal(await topicLog(cast.owner, signups, 'signups'), [`Notification Bot: @_**announced|${announced.id}** joined this organization.`]);
  } finally {
    await realm.updateSettings({ signup_announcements_stream_id: -1 });
  }
  await signUp(assertSuccess(await invite(cast.admin, { welcome_message_custom_text: '' })).invite_link, 'quiet@example.com');
  assert.equal(await welcomeOf('quiet@example.com'), []);
  await realm.updateSettings({ welcome_message_custom_text: 'The organization says hi.' });
  try {
    await signUp(assertSuccess(await invite(cast.admin)).invite_link, 'defaulted@example.com');
    assert.equal(await welcomeOf('defaulted@example.com'), ['The organization says hi.']);
  } finally {
    await realm.updateSettings({ welcome_message_custom_text: '' });
  }
});

signup('invalid input re-renders the form with the problem and creates nothing', async () => {
  const link = assertSuccess(await invite(cast.admin)).invite_link;
  const before = realm.handle.state.users.size;
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ email: 'not-an-email', full_name: 'X', password: 'secret1' }, /valid email address/],
    [{ email: 'x@example.com', full_name: '', password: 'secret1' }, /enter your name/],
    [{ email: 'x@example.com', full_name: 'X', password: '123' }, /6 to 100 characters/],
    [{ email: cast.member.email, full_name: 'X', password: 'secret1' }, /already in use/],
  ];
  for (const [form, message] of cases) {
    const res = await page(link, 'POST', form);
    assert.is(res.status, 400);
    assert.match(res.text, message);
    assert.match(res.text, /<form/);
  }
  assert.is(realm.handle.state.users.size, before);
  // What the user typed is kept, escaped.
  const res = await page(link, 'POST', { email: '"><script>x</script>', full_name: 'A', password: 'secret1' });
  assert.not.match(res.text, /<script>x/);
  assert.match(res.text, /&quot;&gt;&lt;script&gt;/);
});

signup("with sign-ups restricted to the organization's domains, a link admits only their addresses", async () => {
  const link = assertSuccess(await invite(cast.admin)).invite_link;
  assertSuccess(await realm.owner.post('/api/v1/realm/domains', { domain: 'allowed.test', allow_subdomains: false }));
  assertSuccess(await realm.owner.patch('/api/v1/realm', { emails_restricted_to_domains: true }));
  try {
    for (const email of ['out@elsewhere.test', 'sub@eng.allowed.test']) {
      const res = await page(link, 'POST', { email, full_name: 'Outsider', password: 'secret1' });
      assert.is(res.status, 400);
      assert.ok(res.text.includes(`Email '${email}' not allowed in this organization`), res.text);
      assert.match(res.text, /<form/);
      assert.is(realm.handle.state.userByDeliveryEmail(email), undefined);
    }
    assert.is((await page(link, 'POST', { email: 'in@allowed.test', full_name: 'Insider', password: 'secret1' })).status, 200);
    assert.ok(realm.handle.state.userByDeliveryEmail('in@allowed.test')?.is_active);
  } finally {
    assertSuccess(await realm.owner.patch('/api/v1/realm', { emails_restricted_to_domains: false }));
  }
  // Unrestricted again: the same link admits any address.
  assert.is((await page(link, 'POST', { email: 'out@elsewhere.test', full_name: 'Outsider', password: 'secret1' })).status, 200);
});

signup('expired, revoked and unknown links are refused', async () => {
  const expiring = assertSuccess(await invite(cast.admin, { invite_expires_in_minutes: 5 })).invite_link;
  const revoked = assertSuccess(await invite(cast.admin)).invite_link;
  const id = (await listInvites(cast.admin)).find((i) => i.link_url === revoked)!.id;
  assertSuccess(await cast.admin.delete(`/api/v1/invites/multiuse/${id}`));
  clock.advance(5 * 60_000 + 1);
  const form = { email: 'late@example.com', full_name: 'Lee Late', password: 'secret1' };
  for (const [link, message] of [
    [expiring, /has expired/],
    [revoked, /has been revoked/],
  ] as const) {
    for (const method of ['GET', 'POST']) {
      const res = await page(link, method, form);
      assert.is(res.status, 410);
      assert.match(res.text, message);
    }
  }
  const unknown = await page(`${realm.handle.state.realm.url}/join/nosuchkeyatall/`);
  assert.is(unknown.status, 404);
  assert.match(unknown.text, /not valid/);
  assert.is(realm.handle.state.userByDeliveryEmail('late@example.com'), undefined);
});

signup.after(async () => {
  await server.close();
});

create.run();
manage.run();
signup.run();
