// Drafts: created, listed, edited and deleted with their events and register member; their
// audience checked as a message's; none kept while a user does not synchronize them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { drainEvents, expectConsistent } from '../helpers/consistency.js';
import { castOf, createChannel, ROLE_NAMES, type Cast } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;

interface Draft {
  id: number;
  type: string;
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
}

const listed = async (u: TestUser): Promise<Draft[]> => {
  const r = assertSuccess(await u.get('/api/v1/drafts'));
  assert.is(r.count, r.drafts.length);
  return r.drafts as Draft[];
};
const create = (u: TestUser, drafts: object[]) => u.post('/api/v1/drafts', { drafts });
const types = { types: ['drafts'] };

const drafts = suite('drafts');
drafts.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  cast = await castOf(realm);
});

drafts('created, listed by last edit, edited and deleted, each change told to the owner', async () => {
  const { member, moderator } = cast;
  const room = await createChannel(realm.owner, 'drafting', { others: [member] });
  let ids: number[] = [];
  await expectConsistent(member, async () => {
    ids = assertSuccess(
      await create(member, [
        { type: 'stream', to: [room], topic: 'plans', content: 'half a thought', timestamp: 1_700_000_300 },
        { type: 'private', to: [moderator.id, member.id, moderator.id], topic: 'ignored', content: 'to the moderator', timestamp: 1_700_000_100 },
        { type: '', to: [12345], topic: 'ignored', content: 'unaddressed  ', timestamp: 1_700_000_200.9 },
        { type: 'private', to: [member.id], topic: '', content: 'a note to self' },
      ]),
    ).ids as number[];
  }, types);
  assert.is(ids.length, 4);
  const now = Math.floor(Date.now() / 1000);
  const [channel, direct, unaddressed, self] = ids as [number, number, number, number];
  const got = await listed(member);
  assert.equal(got.map((d) => d.id), [direct, unaddressed, channel, self], 'by last edit');
  assert.equal(got[0], { id: direct, type: 'private', to: [moderator.id], topic: '', content: 'to the moderator', timestamp: 1_700_000_100 });
  assert.equal(got[1], { id: unaddressed, type: '', to: [], topic: '', content: 'unaddressed', timestamp: 1_700_000_200 });
  assert.equal(got[2], { id: channel, type: 'stream', to: [room], topic: 'plans', content: 'half a thought', timestamp: 1_700_000_300 });
  assert.equal({ ...got[3], timestamp: 0 }, { id: self, type: 'private', to: [member.id], topic: '', content: 'a note to self', timestamp: 0 });
  assert.ok(Math.abs(got[3]!.timestamp - now) < 60, 'stamped now when not given');
  await expectConsistent(member, async () => {
    assertSuccess(await member.patch(`/api/v1/drafts/${direct}`, { draft: { type: 'stream', to: [room], topic: 'moved', content: 'now for the channel', timestamp: 1_700_000_400 } }));
  }, types);
  assert.equal((await listed(member)).find((d) => d.id === direct), { id: direct, type: 'stream', to: [room], topic: 'moved', content: 'now for the channel', timestamp: 1_700_000_400 });
  const queue = assertSuccess(await member.post('/api/v1/register', { event_types: ['drafts'] })).queue_id as string;
  await expectConsistent(member, async () => assertSuccess(await member.delete(`/api/v1/drafts/${channel}`)), types);
  assert.equal((await drainEvents(member, queue)).map((e) => [e.op, e.draft_id]), [['remove', channel]]);
  assert.not.ok((await listed(member)).some((d) => d.id === channel));
  // Another user's drafts are not there to edit, delete or see.
  assertError(await moderator.delete(`/api/v1/drafts/${direct}`), 'Draft does not exist', 404);
  assertError(await moderator.patch(`/api/v1/drafts/${direct}`, { draft: { type: '', to: [], topic: '', content: 'mine now' } }), 'Draft does not exist', 404);
  assert.is((await listed(moderator)).length, 0);
  assertError(await member.delete(`/api/v1/drafts/${channel}`), 'Draft does not exist', 404);
  const register = assertSuccess(await member.post('/api/v1/register', { fetch_event_types: ['drafts'] }));
  assert.equal(register.drafts, await listed(member));
});

drafts("a draft's audience and content are checked as a message's", async () => {
  const { member, owner } = cast;
  const secret = await createChannel(owner, 'draft-secret', { invite_only: true });
  const open = await createChannel(owner, 'draft-open');
  const to = (type: string, ids: number[], extra: object = {}) => create(member, [{ type, to: ids, topic: 't', content: 'c', ...extra }]);
  assertError(await to('stream', [open, secret]), 'Must specify exactly 1 channel ID for channel messages');
  assertError(await to('stream', []), 'Must specify exactly 1 channel ID for channel messages');
  assertError(await to('stream', [secret]), 'Invalid channel ID');
  assertError(await to('stream', [999999]), 'Invalid channel ID');
  assertError(await to('stream', [open], { topic: 'a\u0000b' }), 'drafts[0]["topic"] must not contain null bytes');
  assertError(await to('private', [999999]), 'Invalid user ID: 999999');
  assertError(await to('', [], { content: '   ' }), 'Message must not be empty');
  assertError(await to('', [], { timestamp: -5 }), 'Timestamp must not be negative.');
  assertError(await to('', [], { timestamp: 1e300 }), 'Timestamp must not be after the year 9999.');
  assertError(await to('', [], { timestamp: 253_402_300_800 }), 'Timestamp must not be after the year 9999.');
  const badType = await to('elsewhere', []);
  assert.is(badType.status, 400);
  assert.match(badType.json.msg as string, /type/);
  assertError(await member.post('/api/v1/drafts', { drafts: 'not json' }), 'Argument "drafts" is not valid JSON.');
  const [long] = assertSuccess(await to('stream', [open], { topic: 'x'.repeat(100) })).ids as number[];
  assert.is([...(await listed(member)).find((d) => d.id === long)!.topic].length, 60, 'a long topic is cut as a message topic is');
  // A direct message draft without recipients is unaddressed.
  const [none] = assertSuccess(await to('private', [])).ids as number[];
  assert.equal((await listed(member)).find((d) => d.id === none)!.type, '');
  assertError(await member.patch('/api/v1/drafts/999999', { draft: { type: '', to: [], topic: '', content: 'x' } }), 'Draft does not exist', 404);
  assertError(await member.patch(`/api/v1/drafts/${none}`, { draft: { type: 'stream', to: [secret], topic: '', content: 'x' } }), 'Invalid channel ID');
});

drafts('every role keeps drafts of its own', async () => {
  for (const role of ROLE_NAMES) {
    const [id] = assertSuccess(await create(cast[role], [{ type: '', to: [], topic: '', content: `${role}'s draft` }])).ids as number[];
    assert.ok((await listed(cast[role])).some((d) => d.id === id && d.content === `${role}'s draft`), role);
  }
});

drafts('turning synchronization off drops the stored drafts and refuses new ones', async () => {
  const u = await realm.createUser({ name: 'Sync Off' });
  const [kept] = assertSuccess(await create(u, [{ type: '', to: [], topic: '', content: 'to be dropped' }])).ids as number[];
  const queue = assertSuccess(await u.post('/api/v1/register', { event_types: ['drafts'] })).queue_id as string;
  assertSuccess(await u.patch('/api/v1/settings', { enable_drafts_synchronization: false }));
  assert.is((await listed(u)).length, 0);
  assert.equal(await drainEvents(u, queue), [], 'no remove events: the clients keep theirs');
  assert.equal(assertSuccess(await u.post('/api/v1/register', { fetch_event_types: ['drafts'] })).drafts, []);
  assertError(await create(u, [{ type: '', to: [], topic: '', content: 'x' }]), 'User has disabled synchronizing drafts.');
  assertError(await u.patch(`/api/v1/drafts/${kept}`, { draft: { type: '', to: [], topic: '', content: 'x' } }), 'User has disabled synchronizing drafts.');
  assertSuccess(await u.patch('/api/v1/settings', { enable_drafts_synchronization: true }));
  assertSuccess(await create(u, [{ type: '', to: [], topic: '', content: 'synchronized again' }]));
  assert.is((await listed(u)).length, 1);
});

drafts.after(async () => {
  await server.close();
});

drafts.run();
