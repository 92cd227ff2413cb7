// Matrix entries for messages, their flags, reactions, typing, edit history and uploads.
import { assertSuccess } from '../../helpers/assert.js';
import { multipart } from '../../helpers/people.js';
import { API, type Fixture } from './fixture.js';
import { BAD, forChannels, forMessages, messageOf, NOT_FOUND, plain, uploadOf, type Matrix, type Probe } from './entry.js';
import type { MessageVis } from './model.js';

/** An unknown and an invisible channel look the same. */
const NO_CHANNEL = { status: 400, code: ['BAD_REQUEST', 'STREAM_DOES_NOT_EXIST'] };
const page = { anchor: 'newest', num_before: 20, num_after: 0 };
const content = (vis: MessageVis) => ({ vis, needs: 'content' as const });
/** Channel-wide operations need what a subscriber has (for protected history: what follows the subscription). */
const subscriber = (vis: MessageVis) => ({ vis, needs: 'late' as const });

const moderationChannels = new WeakMap<Fixture, Promise<number>>();
/** A moderation request channel only the insider reads: what a report quotes reaches no caller. */
function moderationChannel(fx: Fixture): Promise<number> {
  let id = moderationChannels.get(fx);
  if (!id) {
    id = fx.insider
      .post(`${API}/users/me/subscriptions`, { subscriptions: [{ name: 'moderation requests' }], invite_only: true })
      .then((r) => (assertSuccess(r), fx.realm.handle.state.channels.byName('moderation requests')!.id));
    moderationChannels.set(fx, id);
  }
  return id;
}

/** A delivery time no probe run reaches. */
const nextYear = () => Math.floor(Date.now() / 1000) + 365 * 86_400;
const SCHEDULED_NOT_FOUND = { status: 404, code: 'BAD_REQUEST' };
const insiderRows = new WeakMap<Fixture, Promise<{ scheduled: number; reminder: number }>>();
/** A scheduled message and a reminder of the insider's, made once per fixture: nobody else's to change. */
function insiderScheduled(fx: Fixture): Promise<{ scheduled: number; reminder: number }> {
  let rows = insiderRows.get(fx);
  if (!rows) {
    rows = (async () => {
      const at = { scheduled_delivery_timestamp: nextYear() };
      const scheduled = assertSuccess(await fx.insider.post(`${API}/scheduled_messages`, { type: 'direct', to: [fx.insider.id], content: 'later', ...at }));
      const reminder = assertSuccess(await fx.insider.post(`${API}/reminders`, { message_id: fx.dm.messageId, ...at }));
      return { scheduled: scheduled.scheduled_message_id as number, reminder: reminder.reminder_id as number };
    })();
    insiderRows.set(fx, rows);
  }
  return rows;
}

export const messageEntries: Matrix = {
  'GET /api/v1/messages': {
    probes: (fx) => [
      { path: `${API}/messages`, params: page },
      { path: `${API}/messages`, params: { ...page, narrow: [['is', 'dm']] } },
      { path: `${API}/messages`, params: { ...page, narrow: [['dm', [fx.insider.id, fx.hermit.id]]] } },
      { path: `${API}/messages`, params: { ...page, narrow: [['channels', 'public']] } },
      { path: `${API}/messages`, params: { ...page, narrow: [['channels', 'web-public']] } },
      { path: `${API}/messages`, params: { ...page, narrow: [['sender', fx.hermit.id]] }, target: { vis: 'hiddenUser', needs: 'meta' }, denial: 'either' },
      { path: `${API}/messages`, params: { ...page, narrow: [['dm', [fx.hermit.id]]] }, target: { vis: 'hiddenUser', needs: 'meta' }, denial: 'either' },
      ...forChannels((vis) => [
        { path: `${API}/messages`, params: { ...page, narrow: [['channel', fx.channels[vis].channelId]] }, target: content(vis), denial: 'either' as const },
        { path: `${API}/messages`, params: { ...page, narrow: [['channel', fx.channels[vis].channelId], ['topic', fx.channels[vis].topic]] }, target: content(vis), denial: 'either' as const },
      ]),
      ...forMessages((vis) => [
        { path: `${API}/messages`, params: { ...page, narrow: [['search', `zq${vis}edit`]] }, target: content(vis), denial: 'quiet' as const },
        { path: `${API}/messages`, params: { message_ids: [messageOf(fx, vis)] }, target: content(vis), denial: 'quiet' as const },
        { path: `${API}/messages`, params: { anchor: messageOf(fx, vis), num_before: 2, num_after: 2 }, target: content(vis), denial: 'quiet' as const },
        { path: `${API}/messages`, params: { ...page, narrow: [['id', messageOf(fx, vis)]] }, target: content(vis), denial: 'either' as const },
      ]),
    ],
  },
  'GET /api/v1/messages/matches_narrow': {
    probes: (fx) =>
      forMessages((vis) => [
        { path: `${API}/messages/matches_narrow`, params: { msg_ids: [messageOf(fx, vis)], narrow: [] }, target: content(vis), denial: 'quiet' as const },
        { path: `${API}/messages/matches_narrow`, params: { msg_ids: [messageOf(fx, vis)], narrow: [['search', `zq${vis}edit`]] }, target: content(vis), denial: 'quiet' as const },
      ]),
  },
  'POST /api/v1/messages': {
    probes: (fx) => [
      ...forChannels((vis) => ({ path: `${API}/messages`, params: { type: 'stream', to: String(fx.channels[vis].channelId), topic: 'probe', content: 'probe' }, target: { vis, needs: 'meta' }, denial: NO_CHANNEL })),
      ...forChannels((vis) => ({ path: `${API}/messages`, params: { type: 'stream', to: fx.channels[vis].channelName, topic: 'probe', content: 'probe' }, target: { vis, needs: 'meta' }, denial: NO_CHANNEL })),
      { path: `${API}/messages`, params: { type: 'direct', to: [fx.hermit.id], content: 'probe' }, target: { vis: 'hiddenUser', needs: 'meta' }, denial: BAD },
    ],
  },
  'POST /api/v1/messages/render': {
    probes: (fx) => [
      ...forChannels((vis) => ({ path: `${API}/messages/render`, params: { content: `#**${fx.channels[vis].channelName}** #**${fx.channels[vis].channelName}>${fx.channels[vis].topic}@${fx.channels[vis].messageId}**` } })),
      { path: `${API}/messages/render`, params: { content: '@**Hermit zqhiddenname**' } },
    ],
  },
  'GET /api/v1/messages/{message_id}': {
    probes: (fx) => forMessages((vis) => ({ path: `${API}/messages/${messageOf(fx, vis)}`, target: content(vis), denial: BAD, grant: true })),
  },
  'PATCH /api/v1/messages/{message_id}': {
    destructive: true,
    probes: async (fx) => {
      const out: Probe[] = [];
      for (const vis of ['public', 'protected', 'shared', 'webPublic', 'archived'] as const) {
        out.push({ path: `${API}/messages/${await fx.freshMessage(vis)}`, params: { topic: 'probe moved', propagate_mode: 'change_one' }, target: { vis, needs: 'late' }, denial: BAD });
      }
      out.push({ path: `${API}/messages/${await fx.freshMessage('dm')}`, params: { content: 'probe edit' }, target: content('dm'), denial: BAD });
      return out;
    },
  },
  'DELETE /api/v1/messages/{message_id}': {
    destructive: true,
    probes: async (fx) => {
      const out: Probe[] = [];
      for (const vis of ['public', 'protected', 'shared', 'webPublic', 'dm'] as const) {
        out.push({ path: `${API}/messages/${await fx.freshMessage(vis)}`, target: { vis, needs: 'late' }, denial: BAD });
      }
      return out;
    },
  },
  'GET /api/v1/messages/{message_id}/history': {
    probes: (fx) => forMessages((vis) => ({ path: `${API}/messages/${messageOf(fx, vis)}/history`, target: content(vis), denial: BAD, grant: true })),
  },
  // With read receipts on for the organization while the probes run: who read each message.
  'GET /api/v1/messages/{message_id}/read_receipts': {
    probes: async (fx) => {
      await fx.realm.updateSettings({ enable_read_receipts: true });
      return forMessages((vis) => ({ path: `${API}/messages/${messageOf(fx, vis)}/read_receipts`, target: content(vis), denial: BAD, grant: true }));
    },
    after: (fx) => fx.realm.updateSettings({ enable_read_receipts: false }),
  },
  'POST /api/v1/messages/{message_id}/report': {
    probes: async (fx) => {
      await fx.realm.updateSettings({ moderation_request_channel_id: await moderationChannel(fx) });
      return forMessages((vis) => ({ path: `${API}/messages/${messageOf(fx, vis)}/report`, params: { report_type: 'spam' }, target: content(vis), denial: BAD, grant: true }));
    },
    after: (fx) => fx.realm.updateSettings({ moderation_request_channel_id: -1 }),
  },
  'POST /api/v1/messages/{message_id}/reactions': {
    probes: (fx) => forMessages((vis) => ({ path: `${API}/messages/${messageOf(fx, vis)}/reactions`, params: { emoji_name: 'tada' }, target: content(vis), denial: BAD })),
  },
  'DELETE /api/v1/messages/{message_id}/reactions': {
    probes: (fx) => forMessages((vis) => ({ path: `${API}/messages/${messageOf(fx, vis)}/reactions`, params: { emoji_name: 'tada' }, target: content(vis), denial: BAD })),
  },
  'POST /api/v1/messages/{message_id}/typing': {
    probes: (fx) => forMessages((vis) => ({ path: `${API}/messages/${messageOf(fx, vis)}/typing`, params: { op: 'start' }, target: content(vis), denial: BAD })),
  },
  'POST /api/v1/messages/flags': {
    probes: (fx) =>
      forMessages((vis) => [
        { path: `${API}/messages/flags`, params: { messages: [messageOf(fx, vis)], op: 'add', flag: 'starred' }, target: content(vis), denial: BAD },
        // Unread marking may skip messages the caller never received (spec: endpoint 17).
        { path: `${API}/messages/flags`, params: { messages: [messageOf(fx, vis)], op: 'remove', flag: 'read' }, target: content(vis), denial: 'either' as const },
      ]),
  },
  'POST /api/v1/messages/flags/narrow': {
    probes: (fx) => [
      ...forChannels((vis) => ({
        path: `${API}/messages/flags/narrow`,
        params: { ...page, narrow: [['channel', fx.channels[vis].channelId]], op: 'add', flag: 'starred' },
        target: content(vis),
        denial: 'either' as const,
      })),
      ...forMessages((vis) => ({
        path: `${API}/messages/flags/narrow`,
        params: { anchor: messageOf(fx, vis), num_before: 0, num_after: 0, narrow: [], op: 'add', flag: 'starred' },
        target: content(vis),
        denial: 'quiet' as const,
      })),
    ],
  },
  'POST /api/v1/mark_all_as_read': plain('/mark_all_as_read'),
  'POST /api/v1/mark_stream_as_read': {
    probes: (fx) => forChannels((vis) => ({ path: `${API}/mark_stream_as_read`, params: { stream_id: fx.channels[vis].channelId }, target: subscriber(vis), denial: BAD })),
  },
  'POST /api/v1/mark_topic_as_read': {
    probes: (fx) =>
      forChannels((vis) => ({ path: `${API}/mark_topic_as_read`, params: { stream_id: fx.channels[vis].channelId, topic_name: fx.channels[vis].topic }, target: subscriber(vis), denial: BAD })),
  },
  'POST /api/v1/typing': {
    probes: (fx) => [
      ...forChannels((vis) => ({ path: `${API}/typing`, params: { type: 'stream', op: 'start', stream_id: fx.channels[vis].channelId, topic: 'probe' }, target: subscriber(vis), denial: BAD })),
      { path: `${API}/typing`, params: { type: 'direct', op: 'start', to: [fx.hermit.id] }, target: { vis: 'hiddenUser', needs: 'meta' }, denial: BAD },
    ],
  },
  'GET /api/v1/attachments': plain('/attachments'),
  'DELETE /api/v1/attachments/{attachment_id}': {
    probes: (fx) => forMessages((vis) => ({ path: `${API}/attachments/${uploadOf(fx, vis).attachmentId}`, always: BAD })),
  },
  'POST /api/v1/user_uploads': {
    probes: () => {
      const m = multipart({}, { file: { filename: 'probe.txt', data: Buffer.from('probe') } });
      return [{ path: `${API}/user_uploads`, body: m }];
    },
  },
  'GET /api/v1/user_uploads/{realm_id}/{bucket}/{token}/{filename}': {
    probes: (fx) => forMessages((vis) => ({ path: uploadOf(fx, vis).apiUrl, target: content(vis), denial: NOT_FOUND, grant: true })),
  },
  'GET /user_uploads/{realm_id}/{bucket}/{token}/{filename}': {
    probes: (fx) => forMessages((vis) => ({ path: uploadOf(fx, vis).url, target: content(vis), denial: NOT_FOUND, grant: true })),
  },
  'GET /user_uploads/temporary/{token}/{filename}': {
    // The temporary URL is a capability handed out after the access check; a forged one is refused.
    probes: (fx) => [{ path: `/user_uploads/temporary/forged${fx.realm.id}/zqprotectedfile.txt`, always: NOT_FOUND }],
  },
  'GET /api/v1/scheduled_messages': plain('/scheduled_messages'),
  // Scheduling is checked as sending is.
  'POST /api/v1/scheduled_messages': {
    probes: (fx) => [
      ...forChannels((vis) => ({
        path: `${API}/scheduled_messages`,
        params: { type: 'stream', to: String(fx.channels[vis].channelId), topic: 'probe', content: 'probe', scheduled_delivery_timestamp: nextYear() },
        target: { vis, needs: 'meta' },
        denial: NO_CHANNEL,
      })),
      { path: `${API}/scheduled_messages`, params: { type: 'direct', to: [fx.hermit.id], content: 'probe', scheduled_delivery_timestamp: nextYear() }, target: { vis: 'hiddenUser', needs: 'meta' }, denial: BAD },
    ],
  },
  'PATCH /api/v1/scheduled_messages/{scheduled_message_id}': {
    probes: async (fx) => [{ path: `${API}/scheduled_messages/${(await insiderScheduled(fx)).scheduled}`, params: { content: 'taken' }, always: SCHEDULED_NOT_FOUND }],
  },
  'DELETE /api/v1/scheduled_messages/{scheduled_message_id}': {
    probes: async (fx) => [{ path: `${API}/scheduled_messages/${(await insiderScheduled(fx)).scheduled}`, always: SCHEDULED_NOT_FOUND }],
  },
  'GET /api/v1/reminders': plain('/reminders'),
  // A reminder quotes its message: only for a message the caller may read.
  'POST /api/v1/reminders': {
    probes: (fx) =>
      forMessages((vis) => ({
        path: `${API}/reminders`,
        params: { message_id: messageOf(fx, vis), scheduled_delivery_timestamp: nextYear() },
        target: content(vis),
        denial: BAD,
        grant: true,
      })),
  },
  'DELETE /api/v1/reminders/{reminder_id}': {
    probes: async (fx) => [{ path: `${API}/reminders/${(await insiderScheduled(fx)).reminder}`, always: SCHEDULED_NOT_FOUND }],
  },
};
