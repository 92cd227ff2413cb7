// An event is presented once per kind of client in a delivery, and apart where it depends on who
// looks: per viewer (their flags, viewer-dependent types) or per queue (a sender's local id).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PresentationCache, viewVariant } from '../../src/actors/queues/presentation.js';
import type { PublishedEvent } from '../../src/actors/event-sequencer.js';
import { NO_CAPABILITIES } from '../../src/domain/client-capabilities.js';
import type { ClientView, RealmLookup } from '../../src/domain/events/view.js';

const realm: RealmLookup = {
  realm: { host: 'example.test', settings: { empty_topic_display_name: 'general chat' } },
  user: (id) => ({ id, role: 400, avatar_source: 'G', settings: { email_address_visibility: 1 } }),
  canAccessUser: () => true,
};

const view = (queueId: string, userId: number, o: Partial<ClientView> = {}): ClientView => ({
  queueId,
  userId,
  capabilities: NO_CAPABILITIES,
  applyMarkdown: false,
  clientExtavatar: false,
  ...o,
});

const published = (id: number, type: string, payload: Record<string, unknown>, perUser?: PublishedEvent['perUser']): PublishedEvent => ({
  type,
  payload,
  userIds: [1, 2, 3],
  perUser,
  id,
  persisted: false,
});

const typing = (id: number) => published(id, 'typing', { op: 'start', message_type: 'direct', sender: { user_id: 1, email: 'a@example.test' }, recipients: [] });

/** What each view is given for `e`, through one cache, in order. */
function presentAll(e: PublishedEvent, views: ClientView[]) {
  const cache = new PresentationCache();
  return views.map((v) => cache.present(e, v, viewVariant(v), realm));
}

const json = (ps: { buffered: { json: Buffer } }[]) => ps.map((p) => p.buffered.json.toString());

const t = suite('event presentation per delivery');

t('views of one variant share one presentation; another variant gets its own', () => {
  const e = typing(7);
  const [a, b, c, other, d] = presentAll(e, [view('q1', 1), view('q2', 2), view('q3', 3), view('q4', 2, { applyMarkdown: true }), view('q5', 3)]);
  assert.is(b, a);
  assert.is(c, a);
  assert.is(d, a, 'the first variant is still found after another');
  assert.is.not(other, a);
  assert.equal(json(other!), json(a!));
  assert.equal(JSON.parse(json(a!)[0]!), { type: 'typing', op: 'start', message_type: 'direct', sender: { user_id: 1, email: 'a@example.test' }, recipients: [], id: 7 });
});

t("a viewer's own fields are presented for that viewer only; the others share one", () => {
  const e = published(9, 'update_message_flags', { op: 'add', flag: 'read', messages: [4] }, { 2: { all: true } });
  const [u1, u2, u3, u2again] = presentAll(e, [view('q1', 1), view('q2', 2), view('q3', 3), view('q4', 2)]);
  assert.is(u3, u1);
  assert.is.not(u2, u1);
  assert.is(u2again, u2, "one viewer's two queues share theirs");
  assert.is(JSON.parse(json(u2!)[0]!).all, true);
  assert.is(JSON.parse(json(u1!)[0]!).all, undefined);
});

t('a viewer-dependent type is presented per viewer, even without fields of its own', () => {
  const e = published(11, 'user_status', { user_id: 1, status_text: 'away' });
  const [a, b, again] = presentAll(e, [view('q1', 1), view('q2', 2), view('q3', 1)]);
  assert.is.not(b, a);
  assert.is(again, a);
});

t("an event carrying a sender's local id is presented per queue", () => {
  const message = { id: 5, sender_id: 1, type: 'private', content: 'hi', rendered_content: '<p>hi</p>', subject: '', _sender_avatar_source: 'G' };
  const e = published(13, 'message', { message, _local: { queue_id: 'q1', local_id: '42' } });
  const [mine, theirs, same] = presentAll(e, [view('q1', 1), view('q2', 1), view('q3', 1)]);
  assert.is.not(theirs, mine);
  assert.is.not(same, theirs);
  assert.is(JSON.parse(json(mine!)[0]!).local_message_id, '42');
  assert.is(JSON.parse(json(theirs!)[0]!).local_message_id, undefined);
});

t('each event of a delivery has its own presentations', () => {
  const cache = new PresentationCache();
  const v = view('q1', 1);
  const first = cache.present(typing(20), v, viewVariant(v), realm);
  const second = cache.present(typing(21), v, viewVariant(v), realm);
  assert.is.not(second, first);
  assert.is(JSON.parse(json(second)[0]!).id, 21);
});

t.run();
