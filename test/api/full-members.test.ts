// role:fullmembers over time: a new waiting period moves member-role accounts out of (or into) the
// group at once, with user_group events; the organization's timer brings each back when it comes
// of age; permissions that name the group follow.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { Role } from '../../src/domain/roles.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { expectConsistent } from '../helpers/consistency.js';
import { createChannel, sendToChannel } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

const DAY = 86_400_000;
// Accounts are stamped by the database's clock: the test's starts at the real time.
const clock = new ManualClock(Date.now());
let server: TestServer;
let realm: TestRealm;

const fullMembersId = () => realm.handle.state.systemGroupId('role:fullmembers');
const isFull = (u: TestUser) => realm.handle.state.isInGroup(u.id, fullMembersId());
const joined = (u: TestUser) => realm.handle.state.user(u.id)!.date_joined;
const directMembers = () => [...realm.handle.state.groups.get(fullMembersId())!.members].sort((a, b) => a - b);

const t = suite('role:fullmembers and the waiting period');
t.before(async () => {
  server = await startTestServer({ clock });
  realm = await server.createRealm();
  // Notification Bot (which tells the channel below who may post) is an account like any other:
  // one old enough that no waiting period here concerns it.
  await realm.handle.ask('bot.notificationBot', null);
  clock.advance(30 * DAY);
});

t('a new waiting period takes effect at once; accounts come of age by the timer; permissions follow', async () => {
  const { owner } = realm;
  const veteran = await realm.createUser({ name: 'Vera Veteran' });
  const moderator = await realm.createUser({ name: 'Mo Moderator', role: Role.moderator });
  const guest = await realm.createUser({ name: 'Gia Guest', role: Role.guest });
  assert.ok(isFull(veteran) && isFull(moderator) && !isFull(guest), 'no waiting period: every member is a full member');
  const room = await createChannel(owner, 'full-only', { others: [veteran, moderator] });
  assertSuccess(await owner.patch(`/api/v1/streams/${room}`, { can_send_message_group: { new: fullMembersId() } }));

  clock.advance(3 * DAY);
  const events = await expectConsistent(veteran, async () => {
    assertSuccess(await owner.patch('/api/v1/realm', { waiting_period_threshold: 10 }));
  }, { types: ['user_group', 'realm'] });
  const groupEvents = events.filter((e) => e.type === 'user_group');
  assert.equal(groupEvents.map((e) => [e.op, e.group_id, e.user_ids]), [['remove_members', fullMembersId(), [veteran.id]]]);
  assert.not.ok(isFull(veteran), 'three days old: not yet');
  assert.ok(isFull(moderator), 'moderators are full members through their role group');
  assertError(await veteran.post('/api/v1/messages', { type: 'stream', to: String(room), topic: 't', content: 'too early' }), 'You do not have permission to post in this channel.');
  assert.is(realm.handle.fullMembers.nextCheck, joined(veteran) + 10 * DAY, 'armed for the veteran');

  clock.advance(2 * DAY);
  const newcomer = await realm.createUser({ name: 'Nia Newcomer' });
  assert.not.ok(isFull(newcomer));
  assert.is(realm.handle.fullMembers.nextCheck, joined(veteran) + 10 * DAY, 'the earlier crossing stays armed');

  clock.advance(5 * DAY);
  const change = await realm.handle.fullMembers.sync();
  assert.equal(change, { added: [veteran.id], removed: [] });
  assert.ok(isFull(veteran) && !isFull(newcomer));
  assert.is(realm.handle.fullMembers.nextCheck, joined(newcomer) + 10 * DAY, 'then armed for the newcomer');
  await sendToChannel(veteran, room, 't', 'of age now');

  clock.advance(5 * DAY);
  await realm.handle.fullMembers.sync();
  assert.ok(isFull(newcomer));
  assert.is(realm.handle.fullMembers.nextCheck, null, 'nobody left waiting');

  // A shorter period lets the waiting in at once; none lets everyone in.
  const late = await realm.createUser({ name: 'Lou Late' });
  assert.not.ok(isFull(late));
  assert.is(realm.handle.fullMembers.nextCheck, joined(late) + 10 * DAY, 'a new account arms the timer');
  assertSuccess(await owner.patch('/api/v1/realm', { waiting_period_threshold: 0 }));
  assert.ok(isFull(late));
  assert.equal(directMembers().includes(guest.id), false, 'guests never');
});

t.after(async () => {
  await server.close();
});

t.run();
