// DELETE /users/{id} with `actions` (feature level 459): besides the deactivation, delete the
// account's profile and what it and its bots sent in public channels, private channels or direct
// messages; delete_message events reach those who had the messages, and nobody else.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Role } from '../../src/domain/roles.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { drainEvents, expectConsistent } from '../helpers/consistency.js';
import { createChannel, sendDirect, sendToChannel } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let admin: TestUser;
let witness: TestUser;
let outsider: TestUser;
let lobby: number;
let backroom: number;

const t = suite('deactivation actions');

t.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  admin = await realm.createUser({ role: Role.administrator, name: 'Ada Admin' });
  witness = await realm.createUser({ name: 'Wes Witness' });
  outsider = await realm.createUser({ name: 'Otto Outsider' });
  lobby = await createChannel(realm.owner, 'lobby', { others: [admin, witness, outsider] });
  backroom = await createChannel(realm.owner, 'backroom', { others: [witness], invite_only: true });
});

t.after(() => server.close());

/** A member who owns a bot, both subscribed to both channels. */
async function spammer(name: string): Promise<{ user: TestUser; bot: TestUser }> {
  const user = await realm.createUser({ name });
  const bot = await realm.createUser({ bot: true, botOwnerId: user.id, name: `${name} Bot` });
  assertSuccess(await realm.owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'lobby' }, { name: 'backroom' }], principals: [user.id, bot.id] }));
  return { user, bot };
}

const exists = async (id: number) => (await witness.get(`/api/v1/messages/${id}`)).status === 200;

async function queueOf(u: TestUser): Promise<string> {
  const r = assertSuccess(await u.post('/api/v1/register', { event_types: ['delete_message'], client_capabilities: { bulk_message_deletion: true } }));
  return r.queue_id as string;
}

/** delete_message events as `where → ids` ("channel/topic" or "direct"). */
async function deletions(u: TestUser, queueId: string): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for (const e of await drainEvents(u, queueId)) {
    const where = e.message_type === 'stream' ? `${e.stream_id}/${e.topic}` : 'direct';
    (out[where] ??= []).push(...(e.message_ids as number[]));
  }
  for (const ids of Object.values(out)) ids.sort((a, b) => a - b);
  return out;
}

const deactivate = (target: TestUser, actions?: Record<string, unknown>) =>
  admin.delete(`/api/v1/users/${target.id}`, actions === undefined ? {} : { actions });

t('actions are checked before anything happens', async () => {
  const { user } = await spammer('Checked');
  assertError(await admin.delete(`/api/v1/users/${user.id}`, { actions: '{"delete_profile":' }), 'Argument "actions" is not valid JSON.', 400, 'BAD_REQUEST');
  assertError(await deactivate(user, { delete_profile: 'yes' }), 'actions["delete_profile"] is not a boolean');
  assertError(await deactivate(user, { delete_everything: true }), 'Unexpected arguments in actions: delete_everything');
  assertError(await deactivate(user, [true] as never), 'actions is not a dict');
  assert.is(assertSuccess(await admin.get(`/api/v1/users/${user.id}`)).user.is_active, true);
  assertSuccess(await deactivate(user, {}));
  assert.is(assertSuccess(await admin.get(`/api/v1/users/${user.id}`)).user.is_active, false);
});

t("public channel messages: the account's and its bot's go, in one event per topic; nothing else", async () => {
  const { user, bot } = await spammer('Pub Lisher');
  const a1 = await sendToChannel(user, lobby, 'a', 'spam 1');
  const b1 = await sendToChannel(user, lobby, 'b', 'spam 2');
  const a2 = await sendToChannel(bot, lobby, 'a', 'bot spam');
  const kept = [
    await sendToChannel(user, backroom, 'a', 'private'),
    await sendDirect(user, [witness], 'direct'),
    await sendToChannel(witness, lobby, 'a', 'an answer'),
  ];
  const queue = await queueOf(witness);
  assertSuccess(await deactivate(user, { delete_public_channel_messages: true }));
  for (const id of [a1, b1, a2]) assert.not.ok(await exists(id), `message ${id} deleted`);
  for (const id of kept) assert.ok(await exists(id), `message ${id} kept`);
  assert.equal(await deletions(witness, queue), { [`${lobby}/a`]: [a1, a2].sort((x, y) => x - y), [`${lobby}/b`]: [b1] });
  assert.is(assertSuccess(await admin.get(`/api/v1/users/${bot.id}`)).user.is_active, false, 'its bot is deactivated too');
});

t('private channel and direct messages go to those who had them; others hear nothing', async () => {
  const { user, bot } = await spammer('Priv Ate');
  const inBackroom = [await sendToChannel(user, backroom, 'x', 'secret'), await sendToChannel(bot, backroom, 'y', 'bot secret')];
  const direct = await sendDirect(user, [witness], 'psst');
  const group = await sendDirect(bot, [witness, outsider], 'to two');
  const kept = await sendToChannel(user, lobby, 'x', 'public');
  const [theirs, others] = [await queueOf(witness), await queueOf(outsider)];
  assertSuccess(await deactivate(user, { delete_private_channel_messages: true, delete_direct_messages: true }));
  for (const id of [...inBackroom, direct, group]) assert.not.ok(await exists(id), `message ${id} deleted`);
  assert.ok(await exists(kept));
  assert.equal(await deletions(witness, theirs), {
    [`${backroom}/x`]: [inBackroom[0]!],
    [`${backroom}/y`]: [inBackroom[1]!],
    direct: [direct, group].sort((x, y) => x - y),
  });
  assert.equal(await deletions(outsider, others), { direct: [group] }, 'only the direct message the outsider had');
});

t('in a channel with protected history, a later subscriber hears only of what they had', async () => {
  const { user } = await spammer('Hist Oric');
  const vault = await createChannel(realm.owner, 'vault', { others: [user, witness], invite_only: true, history_public_to_subscribers: false });
  const before = await sendToChannel(user, vault, 'old', 'before you came');
  const late = await realm.createUser({ name: 'Lena Late' });
  assertSuccess(await realm.owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'vault' }], principals: [late.id] }));
  const after = await sendToChannel(user, vault, 'new', 'after');
  const [early, theirs] = [await queueOf(witness), await queueOf(late)];
  assertSuccess(await deactivate(user, { delete_private_channel_messages: true }));
  assert.equal(await deletions(witness, early), { [`${vault}/old`]: [before], [`${vault}/new`]: [after] });
  assert.equal(await deletions(late, theirs), { [`${vault}/new`]: [after] });
});

t("a channel whose first message goes has its next one as first, and its clients are told", async () => {
  const { user } = await spammer('First Poster');
  const fresh = await createChannel(realm.owner, 'fresh', { others: [user, witness] });
  const opening = await sendToChannel(user, fresh, 'hello', 'first!');
  const reply = await sendToChannel(witness, fresh, 'hello', 'second');
  const firstOf = async () => assertSuccess(await witness.get(`/api/v1/streams/${fresh}`)).stream.first_message_id;
  assert.is(await firstOf(), opening);
  await expectConsistent(witness, async () => assertSuccess(await deactivate(user, { delete_public_channel_messages: true })), { types: ['stream', 'subscription', 'realm_user'] });
  assert.is(await firstOf(), reply);
});

t("without actions, or with them false, nothing the account sent goes", async () => {
  for (const actions of [undefined, { delete_public_channel_messages: false, delete_direct_messages: false }]) {
    const { user } = await spammer(`Keeps ${actions ? 'False' : 'None'}`);
    const ids = [await sendToChannel(user, lobby, 'k', 'stays'), await sendDirect(user, [witness], 'stays too')];
    assertSuccess(await deactivate(user, actions));
    for (const id of ids) assert.ok(await exists(id), `message ${id} kept`);
  }
});

t('delete_profile: the account and its bots become "Deleted user", however many already are', async () => {
  await realm.updateSettings({ require_unique_names: true });
  for (const name of ['Del One', 'Del Two']) {
    const { user, bot } = await spammer(name);
    const events = await expectConsistent(admin, async () => assertSuccess(await deactivate(user, { delete_profile: true })), { types: ['realm_user', 'realm_bot'] });
    for (const u of [user, bot]) assert.is(assertSuccess(await admin.get(`/api/v1/users/${u.id}`)).user.full_name, 'Deleted user');
    const renamed = events.filter((e) => e.type === 'realm_user' && e.person.full_name === 'Deleted user').map((e) => e.person.user_id);
    assert.equal(renamed, [bot.id, user.id], 'the bot first, as the deactivation');
  }
  await realm.updateSettings({ require_unique_names: false });
});

t.run();
