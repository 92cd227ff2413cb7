// Matrix entries for the organization's settings and content, invitations, event queues, the
// server's own endpoints, push registration and personal lists. Most aim at nothing secret; they
// are in the matrix for the 401s and for what their answers and events might carry.
import { assertSuccess } from '../../helpers/assert.js';
import { multipart, PNG } from '../../helpers/people.js';
import { API, type Fixture } from './fixture.js';
import { BAD, forChannels, plain, type Matrix } from './entry.js';

const DRAFT_NOT_FOUND = { status: 404, code: 'BAD_REQUEST' };
const insiderDrafts = new WeakMap<Fixture, Promise<number>>();
/** A draft of the insider's, made once per fixture. */
function insiderDraft(fx: Fixture): Promise<number> {
  let id = insiderDrafts.get(fx);
  if (!id) {
    id = fx.insider.post(`${API}/drafts`, { drafts: [{ type: '', to: [], topic: '', content: 'the insider draft' }] }).then((r) => (assertSuccess(r).ids as number[])[0]!);
    insiderDrafts.set(fx, id);
  }
  return id;
}

const registerVariants = (channelName: string) => [
  {},
  { include_subscribers: 'true' },
  { include_subscribers: 'partial', client_capabilities: { archived_channels: true, user_list_incomplete: true, include_deactivated_groups: true } },
  { all_public_streams: true },
  { narrow: [['channel', channelName]] },
  { apply_markdown: true, slim_presence: true, client_capabilities: { simplified_presence_events: true, empty_topic_name: true } },
];

export const realmEntries: Matrix = {
  'GET /api/v1/openapi.json': plain('/openapi.json'),
  'GET /api/v1/server_settings': plain('/server_settings'),
  'GET /health': { probes: () => [{ path: '/health' }] },
  'GET /metrics': { probes: () => [{ path: '/metrics' }] },
  'POST /api/v1/fetch_api_key': {
    probes: (fx) => [fx.insider, fx.hermit].map((u) => ({ path: `${API}/fetch_api_key`, params: { username: u.email, password: 'not-the-password' } })),
  },
  'POST /api/v1/register': {
    probes: (fx) =>
      registerVariants(fx.channels.protected.channelName).map((params) => ({ path: `${API}/register`, params })),
    // Dozens of idle queues would slow every later write down (their cursors are flushed).
    cleanup: async (fx, c, res) => {
      if (typeof res.json.queue_id === 'string') await fx.request(c, 'DELETE', `${API}/events`, { queue_id: res.json.queue_id }, {});
    },
  },
  'GET /api/v1/events': {
    // Another user's queue: refused as if it did not exist.
    probes: (fx) => [{ path: `${API}/events`, params: { queue_id: fx.insiderQueue, last_event_id: -1, dont_block: true }, always: { status: 400, code: 'BAD_EVENT_QUEUE_ID' } }],
  },
  'DELETE /api/v1/events': {
    probes: (fx) => [{ path: `${API}/events`, params: { queue_id: fx.insiderQueue }, always: { status: 400, code: 'BAD_EVENT_QUEUE_ID' } }],
  },
  'POST /api/v1/events/socket_ticket': plain('/events/socket_ticket'),
  'PATCH /api/v1/realm': { probes: (fx) => [{ path: `${API}/realm`, params: { name: fx.realm.handle.state.realm.name } }] },
  'GET /api/v1/realm/domains': plain('/realm/domains'),
  'POST /api/v1/realm/domains': plain('/realm/domains', { domain: 'probe.example.com', allow_subdomains: false }),
  'PATCH /api/v1/realm/domains/{domain}': plain('/realm/domains/probe.example.com', { allow_subdomains: true }),
  'DELETE /api/v1/realm/domains/{domain}': plain('/realm/domains/probe.example.com'),
  'GET /api/v1/realm/emoji': plain('/realm/emoji'),
  'POST /api/v1/realm/emoji/{emoji_name}': {
    probes: (_fx, c) => [{ path: `${API}/realm/emoji/probe_${c.toLowerCase()}`, body: multipart({}, { file: { filename: 'e.png', data: PNG } }) }],
  },
  'DELETE /api/v1/realm/emoji/{emoji_name}': { probes: (_fx, c) => [{ path: `${API}/realm/emoji/probe_${c.toLowerCase()}` }] },
  'GET /user_avatars/{realm_id}/emoji/images/{file_name}': { probes: (fx) => [{ path: `/user_avatars/${fx.realm.id}/emoji/images/probe.png` }] },
  'POST /api/v1/realm/filters': plain('/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://example.com/{id}' }),
  'PATCH /api/v1/realm/filters/{filter_id}': plain('/realm/filters/1', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://example.com/{id}' }),
  'DELETE /api/v1/realm/filters/{filter_id}': plain('/realm/filters/1'),
  'GET /api/v1/realm/linkifiers': plain('/realm/linkifiers'),
  'PATCH /api/v1/realm/linkifiers': plain('/realm/linkifiers', { ordered_linkifier_ids: [] }),
  'PATCH /api/v1/realm/user_settings_defaults': plain('/realm/user_settings_defaults', { enter_sends: true }),
  'GET /api/v1/realm/profile_fields': plain('/realm/profile_fields'),
  'POST /api/v1/realm/profile_fields': { probes: (_fx, c) => [{ path: `${API}/realm/profile_fields`, params: { name: `Probe ${c}`, field_type: 1 } }] },
  'PATCH /api/v1/realm/profile_fields': plain('/realm/profile_fields', { order: [] }),
  'PATCH /api/v1/realm/profile_fields/{field_id}': plain('/realm/profile_fields/1', { hint: 'probe' }),
  'DELETE /api/v1/realm/profile_fields/{field_id}': plain('/realm/profile_fields/999999'),
  'GET /api/v1/invites': plain('/invites'),
  'POST /api/v1/invites/multiuse': {
    probes: (fx) => [
      { path: `${API}/invites/multiuse`, params: {} },
      ...forChannels((vis) => ({ path: `${API}/invites/multiuse`, params: { stream_ids: [fx.channels[vis].channelId] }, target: { vis, needs: 'meta' as const }, denial: BAD })),
    ],
  },
  'DELETE /api/v1/invites/multiuse/{invite_id}': plain('/invites/multiuse/999999'),
  'GET /join/{key}/': { probes: () => [{ path: '/join/forgedkey/' }] },
  'POST /join/{key}/': { probes: () => [{ path: '/join/forgedkey/', params: { email: 'probe@example.com', full_name: 'Probe', password: 'probe-password-1' } }] },
  'GET /login': { probes: () => [{ path: '/login' }] },
  // A wrong password for an account the caller may not know, and a logout that needs no session.
  'POST /login': { probes: (fx) => [{ path: '/login', params: { username: fx.hermit.email, password: 'not-the-password' } }] },
  'POST /logout': { probes: () => [{ path: '/logout' }] },
  'POST /api/v1/realm/playgrounds': plain('/realm/playgrounds', { name: 'probe', pygments_language: 'Python', url_template: 'https://play.test/{code}' }),
  'DELETE /api/v1/realm/playgrounds/{playground_id}': plain('/realm/playgrounds/999999'),
  'POST /api/v1/realm/test_welcome_bot_custom_message': plain('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'probe' }),
  'GET /api/v1/drafts': plain('/drafts'),
  // A channel draft needs to be able to read the channel; another user's draft is nobody else's.
  'POST /api/v1/drafts': {
    probes: (fx) =>
      forChannels((vis) => ({
        path: `${API}/drafts`,
        params: { drafts: [{ type: 'stream', to: [fx.channels[vis].channelId], topic: 'probe', content: 'probe' }] },
        // What a subscriber has (of a protected channel, what follows the subscription).
        target: { vis, needs: 'late' },
        denial: BAD,
        grant: true,
      })),
  },
  'PATCH /api/v1/drafts/{draft_id}': {
    probes: async (fx) => [{ path: `${API}/drafts/${await insiderDraft(fx)}`, params: { draft: { type: '', to: [], topic: '', content: 'taken' } }, always: DRAFT_NOT_FOUND }],
  },
  'DELETE /api/v1/drafts/{draft_id}': {
    probes: async (fx) => [{ path: `${API}/drafts/${await insiderDraft(fx)}`, always: DRAFT_NOT_FOUND }],
  },
  'GET /api/v1/saved_snippets': plain('/saved_snippets'),
  'POST /api/v1/saved_snippets': plain('/saved_snippets', { title: 'probe', content: 'probe' }),
  'PATCH /api/v1/saved_snippets/{saved_snippet_id}': plain('/saved_snippets/1', { title: 'probe' }),
  'DELETE /api/v1/saved_snippets/{saved_snippet_id}': plain('/saved_snippets/999999'),
  'GET /api/v1/navigation_views': plain('/navigation_views'),
  'POST /api/v1/navigation_views': plain('/navigation_views', { fragment: 'narrow/is/starred', is_pinned: true }),
  'PATCH /api/v1/navigation_views/{fragment}': plain(`/navigation_views/${encodeURIComponent('narrow/is/starred')}`, { is_pinned: false }),
  'DELETE /api/v1/navigation_views/{fragment}': plain(`/navigation_views/${encodeURIComponent('narrow/is/starred')}`),
  'POST /api/v1/calls/videocall/create': plain('/calls/videocall/create'),
  'POST /api/v1/users/me/apns_device_token': plain('/users/me/apns_device_token', { token: 'ab'.repeat(32), appid: 'org.example.app' }),
  'DELETE /api/v1/users/me/apns_device_token': plain('/users/me/apns_device_token', { token: 'ab'.repeat(32) }),
  'POST /api/v1/users/me/android_gcm_reg_id': plain('/users/me/android_gcm_reg_id', { token: 'probe-token' }),
  'DELETE /api/v1/users/me/android_gcm_reg_id': plain('/users/me/android_gcm_reg_id', { token: 'probe-token' }),
  // Any account names a new device of its own.
  'POST /api/v1/register_client_device': plain('/register_client_device'),
  'POST /api/v1/mobile_push/register': plain('/mobile_push/register', { device_id: 1 }),
  // Only ever the caller's own devices (the push tests send to them); here, with no push service, refused alike.
  'POST /api/v1/mobile_push/test_notification': plain('/mobile_push/test_notification', { token: 'abcdef0123' }),
  'POST /api/v1/mobile_push/e2ee/test_notification': plain('/mobile_push/e2ee/test_notification', { device_id: 1 }),
};
