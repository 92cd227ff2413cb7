// Message reports: refused while the organization has no moderation request channel; then each
// report is Notification Bot's message in that channel, in a topic per reported user, quoting
// the message and the reporter's explanation. Only messages the reporter may read, not their own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { castOf, createChannel, ROLE_NAMES, sendDirect, sendToChannel, type Cast } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;
let moderation = 0;

const nameOf = (u: TestUser) => realm.handle.state.user(u.id)!.full_name;
const report = (u: TestUser, messageId: number, params: Record<string, string> = { report_type: 'spam' }) =>
  u.post(`/api/v1/messages/${messageId}/report`, params);

async function reports(topic: string): Promise<Array<Record<string, unknown>>> {
  const narrow = [{ operator: 'channel', operand: moderation }, { operator: 'topic', operand: topic }];
  const r = assertSuccess(await cast.moderator.get('/api/v1/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow, apply_markdown: false }));
  return r.messages as Array<Record<string, unknown>>;
}

const t = suite('message reports');
t.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  cast = await castOf(realm);
});

t('refused while no moderation request channel is set', async () => {
  const room = await createChannel(cast.owner, 'report-early', { others: [cast.member] });
  const id = await sendToChannel(cast.owner, room, 'hi', 'nothing to see');
  assertError(await report(cast.member, id), 'Moderation request channel must be specified to enable message reporting.');
});

t("a report is posted in the moderation channel, in the reported user's topic", async () => {
  const { member, admin, owner, moderator } = cast;
  moderation = await createChannel(owner, 'moderation', { invite_only: true, others: [moderator] });
  assertSuccess(await owner.patch('/api/v1/realm', { moderation_request_channel_id: moderation }));
  const room = await createChannel(admin, 'report-room', { others: [member] });
  const id = await sendToChannel(admin, room, 'rude', 'you are all ``` wrong');
  assertSuccess(await report(member, id, { report_type: 'harassment', description: '  Not the first time.  ' }));
  const [posted] = await reports(`Reports of ${nameOf(admin)}`);
  assert.is(posted!.sender_full_name, 'Notification Bot');
  const text = posted!.content as string;
  assert.ok(text.startsWith(`@_**${nameOf(member)}|${member.id}** reported [a message](`), text);
  assert.ok(text.includes(`/near/${id}) sent by @_**${nameOf(admin)}|${admin.id}**.`), text);
  assert.ok(text.includes('**Reason**: Harassment'), text);
  assert.ok(text.includes('**Their explanation**:\n```quote\nNot the first time.\n```'), text);
  assert.ok(text.includes('**The message**:\n````quote\nyou are all ``` wrong\n````'), text);
  // A direct message its participant reports.
  const dm = await sendDirect(admin, [member], 'between us');
  assertSuccess(await report(member, dm, { report_type: 'other', description: 'unwanted' }));
  const both = await reports(`Reports of ${nameOf(admin)}`);
  assert.is(both.length, 2);
  assert.ok((both[1]!.content as string).includes(`[a message](/#narrow/id/${dm})`));
  assert.ok((both[1]!.content as string).includes('**Reason**: Other'));
});

t('what may be reported, and how', async () => {
  const { member, admin, guest } = cast;
  const room = await createChannel(admin, 'report-checks', { others: [member] });
  const id = await sendToChannel(admin, room, 'checks', 'report me');
  const mine = await sendToChannel(member, room, 'checks', 'my own');
  assertError(await report(member, mine), 'You cannot report your own messages.');
  assertError(await report(guest, id), 'Invalid message(s)');
  assertError(await report(member, 999_999_999), 'Invalid message(s)');
  assertError(await report(member, id, { report_type: 'other' }), 'A description is required for this kind of report.');
  assertError(await report(member, id, { report_type: 'other', description: '   ' }), 'A description is required for this kind of report.');
  assertError(await report(member, id, { report_type: 'norms', description: 'x'.repeat(1001) }), 'description is too long (limit: 1000 characters)');
  const bad = await report(member, id, { report_type: 'boring' });
  assert.is(bad.status, 400);
  assert.match(bad.json.msg as string, /report_type/);
  assert.is((await reports(`Reports of ${nameOf(admin)}`)).length, 2, 'no refused report was posted');
  // An archived moderation channel turns reporting off again.
  assertSuccess(await cast.owner.delete(`/api/v1/streams/${moderation}`));
  assertError(await report(member, id), 'Moderation request channel must be specified to enable message reporting.');
  assertSuccess(await cast.owner.patch(`/api/v1/streams/${moderation}`, { is_archived: false }));
});

t('every role reports what it may read', async () => {
  const room = await createChannel(realm.owner, 'report-all', { others: ROLE_NAMES.map((r) => cast[r]) });
  const author = await realm.createUser({ name: 'Reported Often' });
  assertSuccess(await realm.owner.post('/api/v1/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'report-all' }]), principals: JSON.stringify([author.id]) }));
  const id = await sendToChannel(author, room, 'all', 'questionable');
  for (const role of ROLE_NAMES) assertSuccess(await report(cast[role], id, { report_type: 'spam' }));
  const posted = await reports('Reports of Reported Often');
  const reporters = posted.map((m) => (m.content as string).slice(0, (m.content as string).indexOf(' reported')));
  assert.equal(reporters.sort(), ROLE_NAMES.map((r) => `@_**${nameOf(cast[r])}|${cast[r].id}**`).sort());
});

t.after(async () => {
  await server.close();
});

t.run();
