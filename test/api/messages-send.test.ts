// POST /messages: channel and direct messages, the message object, who may send where (per
// role), topics, flags from mentions and alert words, idempotent retries, local echo, and the
// one-event fan-out of a channel message.
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { drainEvents, expectConsistent, registerState } from '../helpers/consistency.js';
import { castOf, createChannel, deactivate, ROLE_NAMES, sendDirect, sendToChannel, type Cast } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';
import { sendWeight } from '../../src/actors/conversations/send.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;

const MESSAGE_TYPES = ['message', 'update_message_flags', 'recent_private_conversations', 'subscription', 'realm_user'];

async function fetchOne(u: TestUser, id: number, params: Record<string, unknown> = {}) {
  return assertSuccess(await u.get(`/api/v1/messages/${id}`, params as never)).message;
}

const send = suite('sending');
send.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  cast = await castOf(realm);
  await createChannel(cast.owner, 'general', { others: [cast.admin, cast.moderator, cast.member, cast.guest, cast.bot] });
});

send('a channel message, by name or id, and its shape', async () => {
  const { member, owner } = cast;
  const channelId = realm.handle.state.channels.byName('general')!.id;
  const id = await sendToChannel(member, 'general', 'greetings', 'Hello **world**');
  const byId = await sendToChannel(member, channelId, 'greetings', 'again');
  const quoted = await sendToChannel(member, JSON.stringify('general'), 'greetings', 'and again');
  assert.ok(id < byId && byId < quoted);
  const m = await fetchOne(owner, id);
  assert.is(m.id, id);
  assert.is(m.sender_id, member.id);
  assert.is(m.sender_email, member.email);
  assert.is(m.sender_full_name, 'Mel Member');
  assert.is(m.sender_realm_str, realm.host.split('.')[0]);
  assert.is(m.type, 'stream');
  assert.is(m.stream_id, channelId);
  assert.is(m.display_recipient, 'general');
  assert.is(m.subject, 'greetings');
  assert.equal(m.topic_links, []);
  assert.equal(m.reactions, []);
  assert.equal(m.submessages, []);
  assert.is(m.is_me_message, false);
  assert.is(m.client, 'API');
  assert.is(m.content, '<p>Hello <strong>world</strong></p>');
  assert.is(m.content_type, 'text/html');
  assert.is(m.recipient_id, channelId);
  assert.is(m.avatar_url, null);
  assert.type(m.timestamp, 'number');
  assert.not.ok('last_edit_timestamp' in m);
  assert.equal(m.flags, []);
  const raw = await fetchOne(owner, id, { apply_markdown: false });
  assert.is(raw.content, 'Hello **world**');
  assert.is(raw.content_type, 'text/x-markdown');
  assert.equal((await fetchOne(member, id)).flags, [], 'API clients leave their own messages unread');
});

send('direct messages: by ids or emails, groups, notes to self', async () => {
  const { member, owner, admin } = cast;
  const a = await sendDirect(member, [owner], 'hi');
  const back = await sendDirect(owner, [member], 'hi back');
  const m = await fetchOne(owner, a);
  assert.is(m.type, 'private');
  assert.not.ok('stream_id' in m);
  assert.is(m.subject, '');
  assert.equal(
    m.display_recipient.map((r: { id: number }) => r.id),
    [owner.id, member.id].sort((x, y) => x - y),
  );
  assert.equal(Object.keys(m.display_recipient[0]).sort(), ['email', 'full_name', 'id', 'is_mirror_dummy']);
  assert.is((await fetchOne(member, back)).recipient_id, m.recipient_id, 'both directions share a recipient id');
  const byEmail = assertSuccess(await member.post('/api/v1/messages', { type: 'private', to: JSON.stringify([owner.email, admin.email]), content: 'group' }));
  const group = await fetchOne(admin, byEmail.id);
  assert.is(group.display_recipient.length, 3);
  const commaList = assertSuccess(await member.post('/api/v1/messages', { type: 'direct', to: `${owner.email}, ${admin.email}`, content: 'again' }));
  assert.is((await fetchOne(owner, commaList.id)).recipient_id, group.recipient_id);
  const self = await sendDirect(member, [member], 'note');
  assert.equal((await fetchOne(member, self)).display_recipient.map((r: { id: number }) => r.id), [member.id]);
  assertError(await owner.get(`/api/v1/messages/${self}`), 'Invalid message(s)');
});

send('refusals: recipients, channels, content, topics', async () => {
  const { member, owner } = cast;
  const post = (params: Record<string, unknown>) => member.post('/api/v1/messages', params as never);
  assertError(await post({ type: 'stream', to: 'nowhere', topic: 't', content: 'x' }), "Channel 'nowhere' does not exist", 400, 'STREAM_DOES_NOT_EXIST');
  const noId = assertError(await post({ type: 'stream', to: '999999', topic: 't', content: 'x' }), "Channel with ID '999999' does not exist", 400, 'STREAM_DOES_NOT_EXIST');
  assert.is(noId.stream_id, 999999);
  await createChannel(owner, 'secret', { invite_only: true });
  assertError(await post({ type: 'stream', to: 'secret', topic: 't', content: 'x' }), "Channel 'secret' does not exist", 400, 'STREAM_DOES_NOT_EXIST');
  assertError(await cast.admin.post('/api/v1/messages', { type: 'stream', to: 'secret', topic: 't', content: 'x' }), "Not authorized to send to channel 'secret'");
  assertError(await post({ type: 'stream', to: 'general', content: 'x' }), 'Missing topic');
  assertError(await post({ type: 'stream', to: 'general', topic: 't', content: '  \n ' }), 'Message must not be empty');
  assertError(await post({ type: 'stream', to: 'general', topic: 't', content: 'a\u0000b' }), 'Message must not contain null bytes');
  assertError(await post({ type: 'stream', to: 'general', topic: 'bad\u0007', content: 'x' }), 'Invalid character in topic, at position 4!');
  assertError(await post({ type: 'direct', to: [999999], content: 'x' }), 'Invalid user ID: 999999');
  assertError(await post({ type: 'direct', to: ['nobody@example.com'], content: 'x' }), "Invalid email 'nobody@example.com'");
  assertError(await post({ type: 'direct', to: [], content: 'x' }), 'Message must have recipients');
  assertError(await post({ type: 'smoke', to: 'general', content: 'x' }), 'Invalid type');
  assertError(await post({ type: 'stream', to: 'general', topic: 't' }), "Missing 'content' argument");
  const gone = await realm.createUser({ name: 'Gone Soon' });
  await deactivate(gone);
  assertError(await post({ type: 'direct', to: [gone.id], content: 'x' }), `'${gone.email}' is no longer using this organization.`);
});

send('long content and topics are cut, not refused', async () => {
  const { member, owner } = cast;
  const id = await sendToChannel(member, 'general', 't'.repeat(80), 'y'.repeat(10_050), { apply_markdown: false } as never);
  const m = await fetchOne(owner, id, { apply_markdown: false });
  assert.is(m.subject, 't'.repeat(57) + '...');
  assert.is([...m.content].length, 10_000);
  assert.ok(m.content.endsWith('\n[message truncated]'));
});

send('topics: the empty topic, its display name, and channel topic policies', async () => {
  const { owner, member } = cast;
  const id = await sendToChannel(member, 'general', '', 'empty topic');
  assert.is((await fetchOne(owner, id)).subject, 'general chat');
  assert.is((await fetchOne(owner, id, { allow_empty_topic_name: true })).subject, '');
  const viaName = await sendToChannel(member, 'general', 'general chat', 'same topic');
  assert.is((await fetchOne(owner, viaName, { allow_empty_topic_name: true })).subject, '');
  const legacy = await sendToChannel(member, 'general', '(no topic)', 'same again');
  assert.is((await fetchOne(owner, legacy, { allow_empty_topic_name: true })).subject, '');
  const strict = await createChannel(owner, 'strict', { others: [member] });
  assertSuccess(await owner.patch(`/api/v1/streams/${strict}`, { topics_policy: 'disable_empty_topic' }));
  assertError(
    await member.post('/api/v1/messages', { type: 'stream', to: 'strict', topic: '', content: 'x' }),
    'Sending messages to the general chat topic is not allowed in this channel.',
    400,
    'TOPIC_REQUIRED',
  );
  const chat = await createChannel(owner, 'chat-only', { others: [member], topics_policy: 'empty_topic_only' });
  assertError(
    await member.post('/api/v1/messages', { type: 'stream', to: 'chat-only', topic: 'named', content: 'x' }),
    'Only the general chat topic is allowed in this channel.',
    400,
    'TOPICS_NOT_ALLOWED',
  );
  assert.type(await sendToChannel(member, chat, '', 'fine'), 'number');
});

send('who may send to which channel', async () => {
  const { owner } = cast;
  await createChannel(owner, 'open');
  await createChannel(owner, 'members-priv', { invite_only: true, others: [cast.member, cast.guest] });
  // Public channel, not subscribed: everyone but guests. Private: subscribers only.
  const expectOpen: Record<string, boolean> = { owner: true, admin: true, moderator: true, member: true, guest: false, bot: true };
  const expectPriv: Record<string, boolean> = { owner: true, admin: false, moderator: false, member: true, guest: true, bot: true };
  for (const role of ROLE_NAMES) {
    const u = cast[role];
    const open = await u.post('/api/v1/messages', { type: 'stream', to: 'open', topic: 't', content: 'x' });
    if (expectOpen[role]) assertSuccess(open);
    else assertError(open, "Channel 'open' does not exist", 400, 'STREAM_DOES_NOT_EXIST');
    const priv = await u.post('/api/v1/messages', { type: 'stream', to: 'members-priv', topic: 't', content: 'x' });
    if (expectPriv[role]) assertSuccess(priv);
    else assertError(priv, role === 'admin' ? "Not authorized to send to channel 'members-priv'" : "Channel 'members-priv' does not exist");
  }
  // can_send_message_group, with the bot sending on its owner's right.
  const id = realm.handle.state.channels.byName('open')!.id;
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { can_send_message_group: { new: { direct_members: [owner.id, cast.member.id], direct_subgroups: [] } } }));
  assertError(await cast.admin.post('/api/v1/messages', { type: 'stream', to: 'open', topic: 't', content: 'x' }), 'You do not have permission to post in this channel.');
  assertSuccess(await cast.bot.post('/api/v1/messages', { type: 'stream', to: 'open', topic: 't', content: 'x' }));
  // Archived channels take no messages.
  assertSuccess(await owner.delete(`/api/v1/streams/${id}`));
  assertError(await owner.post('/api/v1/messages', { type: 'stream', to: 'open', topic: 't', content: 'x' }), "Not authorized to send to channel 'open'");
  // Deactivated users cannot authenticate at all.
  const gone = await realm.createUser({ name: 'Deactivated Sender' });
  await deactivate(gone);
  assertError(await gone.post('/api/v1/messages', { type: 'stream', to: 'general', topic: 't', content: 'x' }), 'Account is deactivated', 401);
});

send('a bot does not learn private channel names through its owner’s role', async () => {
  // The owner (an administrator) sees every private channel but may post only where subscribed;
  // a bot posting by its owner's right must get the same answer as for a channel that does not exist.
  const { owner, member } = cast;
  const adminsBot = await realm.createUser({ bot: true, name: 'Admin Bot', botOwnerId: owner.id });
  const id = await createChannel(member, 'secret-plans', { invite_only: true });
  for (const to of [String(id), 'secret-plans']) {
    const r = await adminsBot.post('/api/v1/messages', { type: 'stream', to, topic: 't', content: 'x' });
    assertError(r, to === 'secret-plans' ? "Channel 'secret-plans' does not exist" : `Channel with ID '${id}' does not exist`, 400, 'STREAM_DOES_NOT_EXIST');
  }
  assertSuccess(await member.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'secret-plans' }], principals: [owner.id] }));
  assertSuccess(await adminsBot.post('/api/v1/messages', { type: 'stream', to: String(id), topic: 't', content: 'x' }));
});

send('can_create_topic_group limits new topics, not existing ones', async () => {
  const { owner, member, bot } = cast;
  const id = await createChannel(owner, 'topics', { others: [member, bot] });
  await sendToChannel(owner, 'topics', 'existing', 'x');
  assertSuccess(await owner.patch(`/api/v1/streams/${id}`, { can_create_topic_group: { new: realm.handle.state.systemGroupId('role:administrators') } }));
  assertError(await member.post('/api/v1/messages', { type: 'stream', to: 'topics', topic: 'fresh', content: 'x' }), 'You do not have permission to create new topics in this channel.');
  assert.type(await sendToChannel(member, 'topics', 'EXISTING', 'x'), 'number');
  assert.type(await sendToChannel(owner, 'topics', 'fresh', 'x'), 'number');
});

const flags = suite('flags of a new message');

flags('mentions, silent mentions, group and wildcard mentions, alert words, read_by_sender', async () => {
  const { owner, member, admin, moderator } = cast;
  const flagsOf = async (u: TestUser, id: number) => (await fetchOne(u, id)).flags as string[];
  const direct = await sendToChannel(owner, 'general', 'm', `Hi @**${'Mel Member'}**`);
  assert.equal(await flagsOf(member, direct), ['mentioned']);
  assert.equal(await flagsOf(admin, direct), []);
  const silent = await sendToChannel(owner, 'general', 'm', 'Hi @_**Mel Member**');
  assert.equal(await flagsOf(member, silent), []);
  const wildcard = await sendToChannel(owner, 'general', 'm', 'Hey @**all**');
  assert.equal(await flagsOf(member, wildcard), ['stream_wildcard_mentioned', 'wildcard_mentioned']);
  const topicWildcard = await sendToChannel(owner, 'general', 'm', 'Topic folks @**topic**');
  assert.equal(await flagsOf(owner, topicWildcard), ['topic_wildcard_mentioned', 'wildcard_mentioned']);
  assert.equal(await flagsOf(moderator, topicWildcard), [], 'not a participant of the topic');
  const mods = realm.handle.state.systemGroupId('role:moderators');
  const group = [...realm.handle.state.groups.values()].find((g) => g.id === mods)!;
  const byGroup = await sendToChannel(owner, 'general', 'm', `Calling @*${group.name}*`);
  assert.equal(await flagsOf(moderator, byGroup), ['mentioned']);
  assert.equal(await flagsOf(admin, byGroup), ['mentioned'], 'a member through a subgroup (role:administrators)');
  assert.equal(await flagsOf(member, byGroup), []);
  await server.app.db.query(sql.unsafe`INSERT INTO alert_words (user_id, word) VALUES (${member.id}, 'pizza')`);
  const alerted = await sendToChannel(owner, 'general', 'm', 'Who wants PIZZA?');
  assert.equal(await flagsOf(member, alerted), ['has_alert_word']);
  const inCode = await sendToChannel(owner, 'general', 'm', '`pizza`');
  assert.equal(await flagsOf(member, inCode), []);
  const read = await sendToChannel(member, 'general', 'm', 'mine', { read_by_sender: true });
  assert.equal(await flagsOf(member, read), ['read']);
  const browser = assertSuccess(
    await member.post('/api/v1/messages', { type: 'stream', to: 'general', topic: 'm', content: 'x' }, { headers: { 'User-Agent': 'website/1.0' } }),
  );
  const shown = await fetchOne(member, browser.id);
  assert.equal(shown.flags, ['read']);
  assert.is(shown.client, 'website');
});

flags('wildcard mentions in busy channels need can_mention_many_users_group', async () => {
  const { owner, member } = cast;
  const crowd: TestUser[] = [];
  for (let i = 0; i < 16; i++) crowd.push(await realm.createUser({ name: `Crowd ${i}` }));
  await createChannel(owner, 'busy', { others: [member, ...crowd] });
  assertError(
    await member.post('/api/v1/messages', { type: 'stream', to: 'busy', topic: 't', content: '@**all** hi' }),
    'You do not have permission to use channel wildcard mentions in this channel.',
    400,
    'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
  );
  assert.type(await sendToChannel(member, 'busy', 't', '@_**all** silently'), 'number');
  assert.type(await sendToChannel(owner, 'busy', 't', '@**everyone** hi'), 'number');
  for (const u of crowd) await sendToChannel(u, 'busy', 'crowded', 'me too');
  assertError(
    await member.post('/api/v1/messages', { type: 'stream', to: 'busy', topic: 'crowded', content: '@**topic** hi' }),
    'You do not have permission to use topic wildcard mentions in this topic.',
    400,
    'TOPIC_WILDCARD_MENTION_NOT_ALLOWED',
  );
});

const delivery = suite('delivery');

delivery('Idempotency-Key: a retried send is stored once', async () => {
  const { member } = cast;
  const { queue_id } = await registerState(member, { types: ['message'] });
  const headers = { 'Idempotency-Key': 'retry-1' };
  const params = { type: 'stream', to: 'general', topic: 'idem', content: 'once' };
  const [a, b] = await Promise.all([member.post('/api/v1/messages', params, { headers }), member.post('/api/v1/messages', params, { headers })]);
  const c = await member.post('/api/v1/messages', params, { headers });
  assert.is(assertSuccess(a).id, assertSuccess(b).id);
  assert.is(assertSuccess(c).id, assertSuccess(a).id);
  const stored = await server.app.db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM messages WHERE topic = 'idem'`);
  assert.is(stored, 1);
  const events = await drainEvents(member, queue_id);
  assert.is(events.filter((e) => e.type === 'message').length, 1);
  const other = assertSuccess(await member.post('/api/v1/messages', params, { headers: { 'Idempotency-Key': 'retry-2' } }));
  assert.is.not(other.id, assertSuccess(a).id);
});

// Sends queued behind one in flight are stored together (group commit, src/actors/conversations/
// send.ts). A batch whose transaction fails (here: two sends of one batch claim the same key) is
// retried send by send, so the others are not refused with it.
delivery('concurrent sends to one channel: each answered, duplicates once, events in order', async () => {
  const { member, owner, admin, moderator } = cast;
  const { queue_id } = await registerState(owner, { types: ['message'] });
  const senders = [member, owner, admin, moderator, member, owner];
  // The owner's sends are read for the owner: each message of a batch keeps its own flag rule.
  const post = (u: TestUser, content: string, key?: string) =>
    u.post(
      '/api/v1/messages',
      { type: 'stream', to: 'general', topic: 'group commit', content, ...(u === owner ? { read_by_sender: true } : {}) },
      key ? { headers: { 'Idempotency-Key': key } } : {},
    );
  const answers = await Promise.all([
    post(member, 'first'),
    ...senders.map((u, i) => post(u, `batched ${i}`)),
    post(member, 'twice', 'group-dup'),
    post(member, 'twice', 'group-dup'),
  ]);
  const ids = answers.map((r) => assertSuccess(r).id as number);
  assert.is(ids[7], ids[8], 'the duplicate got the first send\'s id');
  assert.is(new Set(ids).size, 8);
  const stored = await server.app.db.any(sql.type(z.object({ id: z.number(), content: z.string(), sender_id: z.number() }))`
    SELECT id, content, sender_id FROM messages WHERE topic = 'group commit' ORDER BY id`);
  assert.equal(stored.map((m) => m.id), [...new Set(ids)].sort((a, b) => a - b));
  const expected = ['first', ...senders.map((_, i) => `batched ${i}`), 'twice'];
  for (const [i, id] of ids.entries()) {
    const row = stored.find((m) => m.id === id)!;
    assert.is(row.content, expected[Math.min(i, 7)]);
    assert.is(row.sender_id, [member, ...senders, member, member][i]!.id);
  }
  const events = (await drainEvents(owner, queue_id)).filter((e) => e.type === 'message');
  assert.equal(events.map((e) => e.message.id), stored.map((m) => m.id));
  for (let i = 1; i < events.length; i++) assert.ok(events[i]!.id > events[i - 1]!.id);
  for (const e of events) assert.equal(e.flags, e.message.sender_id === owner.id ? ['read'] : []);
});

// An owner runs two batches at once (src/actors/commit-order.ts). The first sends to a new
// channel all set its first message, and a retried send claims the key its first try holds: row
// locks that two overlapping batches could each wait for, the later one taking its lock first,
// were they not taken in the batches' order. Every send is answered, in order, and stored once.
delivery('overlapping batches of first sends to new channels, with keys claimed twice, are all answered in order', async () => {
  const { member, owner, admin, moderator } = cast;
  const senders = [member, owner, admin, moderator];
  const { queue_id } = await registerState(owner, { types: ['message', 'stream'] });
  const all: number[] = [];
  const firsts: Array<[number, number]> = [];
  for (let round = 0; round < 4; round++) {
    const name = `first sends ${round}`;
    await createChannel(owner, name, { others: [member, admin, moderator] });
    // Each sender's send, twice with the same key.
    const sends = senders.flatMap((u, i) => [0, 1].map(() => ({ u, key: `first-${round}-${i}` })));
    const answered = Promise.all(
      sends.map(({ u, key }) =>
        u.post('/api/v1/messages', { type: 'stream', to: name, topic: 'first', content: key }, { headers: { 'Idempotency-Key': key } }),
      ),
    );
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`round ${round}: a send was not answered within 20 s`)), 20_000).unref());
    const ids = (await Promise.race([answered, timeout])).map((r) => assertSuccess(r).id as number);
    for (let i = 0; i < ids.length; i += 2) assert.is(ids[i], ids[i + 1], 'a key claimed twice is one message');
    const stored = await server.app.db.any(sql.type(z.object({ id: z.number(), content: z.string() }))`
      SELECT m.id, m.content FROM messages m JOIN channels c ON c.id = m.channel_id WHERE c.name = ${name} ORDER BY m.id`);
    assert.equal(stored.map((m) => m.id), [...new Set(ids)].sort((a, b) => a - b));
    const first = await server.app.db.oneFirst(sql.type(z.object({ first_message_id: z.number() }))`
      SELECT first_message_id FROM channels WHERE name = ${name}`);
    assert.is(first, stored[0]!.id);
    all.push(...stored.map((m) => m.id));
    firsts.push([realm.handle.state.channels.byName(name)!.id, first]);
  }
  const events = await drainEvents(owner, queue_id);
  assert.equal(events.filter((e) => e.type === 'message').map((e) => e.message.id), all, 'each message once, in id order');
  const told = events.filter((e) => e.type === 'stream' && e.op === 'update').map((e) => [e.op, e.property, e.stream_id, e.value]);
  assert.equal(told, firsts.map(([id, first]) => ['update', 'first_message_id', id, first]), "each channel's first message told once, with the stored value");
});

// The batches of different conversations' owners that wait for one of the realm's send lanes are
// stored in one transaction (src/actors/conversations/group-commit.ts): rows written by one
// transaction share their xmin. Each send is still answered on its own, a key claimed twice
// within one shared transaction is still stored once, and a recipient sees each conversation's
// messages in id order.
delivery('concurrent sends to many conversations share transactions, each answered on its own', async () => {
  const { member, owner, admin, moderator } = cast;
  await createChannel(owner, 'lanes', { others: [member, admin, moderator] });
  const { queue_id } = await registerState(owner, { types: ['message'] });
  const sends: Array<{ by: TestUser; params: Record<string, unknown>; key?: string }> = [];
  for (let round = 0; round < 3; round++) {
    for (const by of [member, admin, moderator]) sends.push({ by, params: { type: 'direct', to: [owner.id], content: `dm ${round}` } });
    sends.push({ by: admin, params: { type: 'direct', to: [member.id, owner.id], content: `group dm ${round}` } });
    sends.push({ by: member, params: { type: 'stream', to: 'general', topic: 'lanes', content: `general ${round}` } });
    sends.push({ by: moderator, params: { type: 'stream', to: 'lanes', topic: 'lanes', content: `lanes ${round}` } });
  }
  // One key, two conversations: whichever commits first is the message; the other send gets its id.
  sends.push({ by: member, params: { type: 'stream', to: 'lanes', topic: 'lanes', content: 'keyed' }, key: 'lanes-dup' });
  sends.push({ by: member, params: { type: 'direct', to: [owner.id], content: 'keyed' }, key: 'lanes-dup' });
  const answers = await Promise.all(
    sends.map((s) => s.by.post('/api/v1/messages', s.params as never, s.key ? { headers: { 'Idempotency-Key': s.key } } : {})),
  );
  const ids = answers.map((r) => assertSuccess(r).id as number);
  assert.is(ids.at(-1), ids.at(-2));
  assert.is(new Set(ids).size, sends.length - 1);
  const stored = await server.app.db.any(
    sql.type(z.object({ id: z.number(), content: z.string(), sender_id: z.number(), conversation: z.string(), tx: z.string() }))`
      SELECT id, content, sender_id, coalesce(channel_id::text, dm_key) AS conversation, xmin::text AS tx
      FROM messages WHERE id = ANY(${sql.array(ids, 'int8')}) ORDER BY id`,
  );
  assert.is(stored.length, sends.length - 1);
  for (const [i, id] of ids.entries()) {
    const row = stored.find((m) => m.id === id)!;
    assert.is(row.content, sends[i]!.params.content);
    assert.is(row.sender_id, sends[i]!.by.id);
  }
  const conversation = (id: number) => stored.find((m) => m.id === id)!.conversation;
  // Owners that are surely different: each channel has its own; direct conversations may share a
  // hashed one, so they count as one here.
  const ownersIn = (tx: string) => new Set(stored.filter((m) => m.tx === tx).map((m) => (m.conversation.includes(',') ? 'direct' : m.conversation))).size;
  const transactions = new Set(stored.map((m) => m.tx));
  assert.ok(transactions.size < stored.length, `${stored.length} sends in ${transactions.size} transactions`);
  assert.ok([...transactions].some((tx) => ownersIn(tx) > 1), 'no transaction held the sends of more than one owner');
  // Each conversation's messages arrive in id order (concurrent transactions of different
  // conversations may commit in either order, as before).
  const events = (await drainEvents(owner, queue_id)).filter((e) => e.type === 'message');
  assert.equal(events.map((e) => e.message.id).sort((a, b) => a - b), stored.map((m) => m.id));
  for (const c of new Set(ids.map(conversation))) {
    const mine = events.filter((e) => conversation(e.message.id) === c).map((e) => e.message.id);
    assert.equal(mine, [...mine].sort((a, b) => a - b), `conversation ${c}`);
  }
});

// A batch of sends is bounded by the rows it writes, so that sends to a large channel are stored
// one per transaction: a send weighs its message, one row per subscriber, and its sender's.
delivery('a send weighs the rows it writes', async () => {
  const { member, owner, admin } = cast;
  const channelId = await createChannel(owner, 'weighed', { others: [member, admin] });
  const ctx = { realm: realm.handle };
  const toChannel = { channel: { id: channelId, topic: 't', isPublic: true } };
  const direct = { dm: { key: `${member.id},${owner.id}`, userIds: [member.id, owner.id] } };
  assert.is(sendWeight(ctx, toChannel), 1 + 3 + 1);
  assert.is(sendWeight(ctx, direct), 1 + 2);
});

delivery('an Idempotency-Key that is not printable ASCII is a 400', async () => {
  const { member } = cast;
  const params = { type: 'stream', to: 'general', topic: 'idem', content: 'bad key' };
  for (const key of ['a\u0000b', 'tab\there', 'x'.repeat(300)]) {
    assertError(await member.post('/api/v1/messages', params, { headers: { 'Idempotency-Key': key } }), 'Invalid Idempotency-Key header');
  }
});

delivery('local echo: the sending queue gets its local id back', async () => {
  const { member, owner } = cast;
  const mine = await registerState(member, { types: ['message'] });
  const theirs = await registerState(owner, { types: ['message'] });
  const id = await sendToChannel(member, 'general', 'echo', 'x', { queue_id: mine.queue_id, local_id: '42.01' });
  const [event] = (await drainEvents(member, mine.queue_id)).filter((e) => e.type === 'message');
  assert.is(event!.message.id, id);
  assert.is(event!.local_message_id, '42.01');
  const [seen] = (await drainEvents(owner, theirs.queue_id)).filter((e) => e.type === 'message');
  assert.not.ok('local_message_id' in seen!);
  assertError(await member.post('/api/v1/messages', { type: 'stream', to: 'general', topic: 'e', content: 'x', queue_id: mine.queue_id }), "Missing 'local_id' argument");
});

delivery('events keep registered state consistent', async () => {
  const { member, owner, admin } = cast;
  for (const observer of [member, owner]) {
    await expectConsistent(observer, () => sendToChannel(member, 'general', 'consistent', `to @**${'Olivia Owner'}**`), { types: MESSAGE_TYPES });
    await expectConsistent(observer, () => sendDirect(member, [owner], 'dm'), { types: MESSAGE_TYPES });
    await expectConsistent(observer, () => sendDirect(member, [owner, admin], 'group dm @**all**'), { types: MESSAGE_TYPES });
  }
  const newChannel = await createChannel(owner, 'fresh-channel', { others: [member] });
  await expectConsistent(member, () => sendToChannel(owner, newChannel, 'first', 'the first message'), { types: ['message', 'subscription', 'stream'] });
  // Who sees a channel without its messages learns of its first message by a stream event, once.
  const unread = await createChannel(owner, 'fresh-unsubscribed');
  const told = await expectConsistent(admin, () => sendToChannel(owner, unread, 'first', 'the first message'), { types: ['message', 'stream'] });
  assert.equal(told.map((e) => [e.type, e.op, e.property, e.stream_id]), [['stream', 'update', 'first_message_id', unread]]);
  assert.equal(await expectConsistent(admin, () => sendToChannel(owner, unread, 'first', 'the second message'), { types: ['message', 'stream'] }), []);
  await expectConsistent(member, () => sendToChannel(owner, 'general', '', 'empty topic'), {
    types: MESSAGE_TYPES,
    registerParams: { client_capabilities: { empty_topic_name: true } },
  });
});

delivery('a channel message is one event for every subscriber, with per-user flags only where they differ', async () => {
  const { owner } = cast;
  const crowd: TestUser[] = [];
  for (let i = 0; i < 60; i++) crowd.push(await realm.createUser({ name: `Listener ${i}` }));
  const channelId = await createChannel(owner, 'broadcast', { others: crowd });
  const id = await sendToChannel(owner, 'broadcast', 'news', `Hello @**Listener 3**`);
  const rows = await server.app.db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM user_messages WHERE message_id = ${id}`);
  assert.is(rows, 61);
  const ev = await server.app.db.one(sql.type(z.object({ user_ids: z.array(z.number()), per_user: z.record(z.unknown()).nullable(), public_channel_id: z.number().nullable() }))`
    SELECT user_ids, per_user, public_channel_id FROM events WHERE type = 'message' AND (payload->'message'->>'id')::bigint = ${id}`);
  assert.is(ev.user_ids.length, 61);
  assert.equal(Object.keys(ev.per_user ?? {}).map(Number), [crowd[3]!.id]);
  assert.is(ev.public_channel_id, channelId);
});

delivery('all_public_streams queues see public channels they are not in', async () => {
  const { owner, moderator } = cast;
  await createChannel(owner, 'lonely');
  await createChannel(owner, 'lonely-private', { invite_only: true });
  const { queue_id } = await registerState(moderator, { types: ['message'], registerParams: { all_public_streams: true } });
  const pub = await sendToChannel(owner, 'lonely', 't', 'hi');
  await sendToChannel(owner, 'lonely-private', 't', 'psst');
  const ids = (await drainEvents(moderator, queue_id)).filter((e) => e.type === 'message').map((e) => e.message.id);
  assert.equal(ids, [pub]);
});

delivery.after(async () => {
  await server.close();
});

send.run();
flags.run();
delivery.run();


