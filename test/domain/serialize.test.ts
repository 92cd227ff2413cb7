// serializeEvent writes typing events from their fields; whatever the event and the client, it
// must give what the general path gives: presentEvent's objects and JSON.stringify's text.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PublishedEvent } from '../../src/actors/event-sequencer.js';
import { NO_CAPABILITIES } from '../../src/domain/client-capabilities.js';
import { presentEvent } from '../../src/domain/events/present.js';
import { serializeEvent } from '../../src/domain/events/serialize.js';
import { typingEvent } from '../../src/domain/events/typing.js';
import type { ClientView, PresentContext, RealmLookup } from '../../src/domain/events/view.js';

const realm: RealmLookup = {
  realm: { host: 'example.test', settings: { empty_topic_display_name: 'general "chat"' } },
  user: (id) => ({ id, role: 400, avatar_source: 'G', settings: { email_address_visibility: 1 } }),
  canAccessUser: () => true,
};

/** A client with no capabilities, with only stream typing, with only empty topics, with both. */
const contexts: PresentContext[] = [
  {},
  { stream_typing_notifications: true },
  { empty_topic_name: true },
  { stream_typing_notifications: true, empty_topic_name: true },
].map((caps) => ({ view: { queueId: 'q', userId: 2, capabilities: { ...NO_CAPABILITIES, ...caps }, applyMarkdown: true, clientExtavatar: false } satisfies ClientView, realm }));

const published = (payload: Record<string, unknown>, perUser?: PublishedEvent['perUser']): PublishedEvent => ({
  type: 'typing',
  payload,
  userIds: [1, 2],
  perUser,
  publicChannelId: null,
  id: 41,
  persisted: false,
});

const ann = { user_id: 1, email: 'ann@example.test' };
const odd = { user_id: 7, email: 'o"d\\d\n\u0001é🎉\ud800@example.test' };

/** The payloads the typing endpoint builds, through the event's definition. */
const built = [
  ...['start', 'stop'].flatMap((op) =>
    ['design', '', 'é 🎉 "quoted" \\ back\nline\u0007', '\udfff lone'].map((topic) =>
      typingEvent.build({ op: op as 'start', message_type: 'stream', sender: ann, stream_id: 3, topic }, { userIds: [1, 2] }),
    ),
  ),
  ...[[], [ann], [ann, odd, { user_id: 9, email: 'z@example.test' }]].map((recipients) =>
    typingEvent.build({ op: 'start', message_type: 'direct', sender: odd, recipients }, { userIds: [1, 2] }),
  ),
].map((spec) => published(spec.payload));

/** Shapes the fast path declines: each must still come out as the general path gives it. */
const unusual = [
  published({ op: 'start', message_type: 'stream', sender: ann, stream_id: 3, topic: 'x' }, { 2: { extra: true } }),
  published({ op: 'start', message_type: 'stream', sender: ann, topic: 'x', stream_id: 3 }),
  published({ op: 'start', message_type: 'stream', sender: ann, stream_id: 3, topic: 'x', more: 1 }),
  published({ op: 'start', message_type: 'stream', sender: { email: 'a@example.test', user_id: 1 }, stream_id: 3, topic: 'x' }),
  published({ op: 'start', message_type: 'stream', sender: { ...ann, role: 400 }, stream_id: 3, topic: 'x' }),
  published({ op: 'start', message_type: 'stream', sender: ann, stream_id: 3.5, topic: 'x' }),
  published({ op: 'start', message_type: 'stream', sender: ann, stream_id: 3, topic: 4 }),
  published({ op: 'pause', message_type: 'stream', sender: ann, stream_id: 3, topic: 'x' }),
  published({ op: 'start', message_type: 'private', sender: ann, recipients: [ann] }),
  published({ op: 'start', message_type: 'direct', sender: ann, recipients: [ann, { user_id: '2', email: 'b@example.test' }] }),
  published({ op: 'start', message_type: 'direct', sender: ann, recipients: [ann, null] }),
  published({ op: 'start', message_type: 'direct', sender: ann, recipients: 'ann' }),
  published({ op: 'start', message_type: 'direct', sender: ann }),
];

const general = (e: PublishedEvent, ctx: PresentContext) => presentEvent(e, ctx).map((event) => ({ event, json: JSON.stringify(event) }));

const t = suite('serializeEvent');

t('typing events as the endpoint builds them: the general path, for every kind of client', () => {
  for (const e of built) {
    for (const ctx of contexts) assert.equal(serializeEvent(e, ctx), general(e, ctx), JSON.stringify({ payload: e.payload, caps: ctx.view.capabilities }));
  }
});

t("the written text is JSON.stringify's, byte for byte, and parses back to the event", () => {
  const [withTopics] = contexts.slice(1);
  for (const e of built) {
    for (const s of serializeEvent(e, withTopics!)) {
      assert.is(s.json, JSON.stringify(s.event));
      assert.equal(JSON.parse(s.json), s.event);
    }
  }
});

t("a channel's typing reaches only clients that declared stream_typing_notifications", () => {
  const e = built[0]!;
  assert.equal(serializeEvent(e, contexts[0]!), []);
  assert.equal(serializeEvent(e, contexts[2]!), []);
  assert.is(serializeEvent(e, contexts[1]!).length, 1);
});

t("an empty topic is the organization's display name unless the client declared empty_topic_name", () => {
  const e = built.find((b) => b.payload.topic === '')!;
  assert.is(JSON.parse(serializeEvent(e, contexts[1]!)[0]!.json).topic, 'general "chat"');
  assert.is(JSON.parse(serializeEvent(e, contexts[3]!)[0]!.json).topic, '');
});

t('shapes the writer does not know take the general path', () => {
  for (const e of unusual) {
    for (const ctx of contexts) assert.equal(serializeEvent(e, ctx), general(e, ctx), JSON.stringify(e.payload));
  }
});

t('other event types take the general path', () => {
  const e: PublishedEvent = { ...published({ op: 'add', flag: 'read', messages: [4] }, { 2: { all: true } }), type: 'update_message_flags' };
  for (const ctx of contexts) assert.equal(serializeEvent(e, ctx), general(e, ctx));
});

t.run();
