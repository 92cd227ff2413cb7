// Matrix entries for channels, subscriptions and topics.
import { assertSuccess } from '../../helpers/assert.js';
import { API, type Fixture } from './fixture.js';
import { BAD, BAD_OR_NOT_ADMIN, forChannels, plain, type Matrix } from './entry.js';
import { CHANNEL_VIS, type Caller, type ChannelVis } from './model.js';

const meta = (vis: ChannelVis) => ({ vis, needs: 'meta' as const });
/** Channel-wide operations need what a subscriber has (for protected history: what follows the subscription). */
const subscriberLevel = (vis: ChannelVis) => ({ vis, needs: 'late' as const });

/** Who is subscribed where in the fixture (besides users who are not callers). */
const SUBSCRIBED: Readonly<Record<ChannelVis, readonly Caller[]>> = {
  public: [],
  protected: ['member'],
  shared: ['guest'],
  webPublic: ['owner'],
  archived: ['member'],
};

/** Put every caller's (and the fixture bot's) subscriptions back as the fixture had them. */
async function resetSubscriptions(fx: Fixture): Promise<void> {
  const index = fx.realm.handle.state.channels;
  const who = [...(Object.keys(fx.cast) as Caller[]).map((c) => ({ c, u: fx.userOf(c)! })), { c: null, u: fx.fixtureBot }];
  for (const vis of CHANNEL_VIS) {
    const ch = fx.channels[vis];
    for (const { c, u } of who) {
      const should = c !== null && SUBSCRIBED[vis].includes(c);
      if (index.isSubscribed(u.id, ch.channelId) === should) continue;
      const archived = index.get(ch.channelId)!.is_archived;
      if (archived) assertSuccess(await fx.realm.owner.patch(`${API}/streams/${ch.channelId}`, { is_archived: false }));
      const by = vis === 'webPublic' ? fx.realm.owner : fx.insider;
      const params = { subscriptions: should ? [{ name: ch.channelName }] : [ch.channelName], principals: [u.id] };
      assertSuccess(should ? await by.post(`${API}/users/me/subscriptions`, params) : await by.delete(`${API}/users/me/subscriptions`, params));
      if (archived) assertSuccess(await fx.realm.owner.delete(`${API}/streams/${ch.channelId}`));
    }
  }
}

/** Archive the archived channel again, and only it. */
async function resetArchives(fx: Fixture): Promise<void> {
  for (const vis of CHANNEL_VIS) {
    const id = fx.channels[vis].channelId;
    const archived = fx.realm.handle.state.channels.get(id)!.is_archived;
    if (archived !== (vis === 'archived')) assertSuccess(await fx.realm.owner.patch(`${API}/streams/${id}`, { is_archived: vis === 'archived' }));
  }
}

export const channelEntries: Matrix = {
  'GET /api/v1/streams': {
    probes: () =>
      [
        {},
        { include_all: true },
        { include_all_active: true },
        { include_web_public: true },
        { include_can_access_content: true },
        { exclude_archived: false, include_all: true },
        { include_default: true },
        { include_owner_subscribed: true },
      ].map((params) => ({ path: `${API}/streams`, params })),
  },
  'GET /api/v1/streams/{stream_id}': {
    probes: (fx) => forChannels((vis) => ({ path: `${API}/streams/${fx.channels[vis].channelId}`, target: meta(vis), denial: BAD, grant: true })),
  },
  'PATCH /api/v1/streams/{stream_id}': {
    // A real change, so that the update events (and who gets them) are checked too.
    probes: (fx, c) =>
      forChannels((vis) => ({ path: `${API}/streams/${fx.channels[vis].channelId}`, params: { description: `${fx.channels[vis].description} by ${c}` }, target: meta(vis), denial: BAD })),
    after: async (fx) => {
      for (const vis of CHANNEL_VIS) {
        const { channelId, description } = fx.channels[vis];
        if (fx.realm.handle.state.channels.get(channelId)!.description !== description) {
          assertSuccess(await fx.realm.owner.patch(`${API}/streams/${channelId}`, { description }));
        }
      }
    },
  },
  'DELETE /api/v1/streams/{stream_id}': {
    destructive: true,
    probes: (fx) => forChannels((vis) => ({ path: `${API}/streams/${fx.channels[vis].channelId}`, target: meta(vis), denial: BAD })),
    after: (fx) => resetArchives(fx),
  },
  'GET /api/v1/streams/{stream_id}/members': {
    probes: (fx) => forChannels((vis) => ({ path: `${API}/streams/${fx.channels[vis].channelId}/members`, target: meta(vis), denial: BAD, grant: true })),
  },
  // A topic that does not exist: nothing is deleted, but the channel is checked first.
  'POST /api/v1/streams/{stream_id}/delete_topic': {
    probes: (fx) => forChannels((vis) => ({ path: `${API}/streams/${fx.channels[vis].channelId}/delete_topic`, params: { topic_name: 'zq no such topic' }, target: { vis, needs: 'content' }, denial: BAD_OR_NOT_ADMIN })),
  },
  'GET /api/v1/get_stream_id': {
    probes: (fx) => forChannels((vis) => ({ path: `${API}/get_stream_id`, params: { stream: fx.channels[vis].channelName }, target: { vis, needs: 'late' }, denial: BAD, grant: true })),
  },
  'POST /api/v1/default_streams': {
    probes: (fx) => forChannels((vis) => ({ path: `${API}/default_streams`, params: { stream_id: fx.channels[vis].channelId }, target: meta(vis), denial: BAD_OR_NOT_ADMIN })),
    after: async (fx) => {
      for (const vis of CHANNEL_VIS) await fx.realm.owner.delete(`${API}/default_streams`, { stream_id: fx.channels[vis].channelId });
    },
  },
  'DELETE /api/v1/default_streams': {
    probes: (fx) => forChannels((vis) => ({ path: `${API}/default_streams`, params: { stream_id: fx.channels[vis].channelId }, target: meta(vis), denial: BAD_OR_NOT_ADMIN })),
  },
  // Another user's subscriptions: the insider follows every channel of the fixture, the hermit
  // is one the guest may not see. Each channel answered is one the caller may see (the scan).
  'GET /api/v1/users/{user_id}/subscriptions/{stream_id}': {
    probes: (fx) => [
      ...forChannels((vis) => ({ path: `${API}/users/${fx.insider.id}/subscriptions/${fx.channels[vis].channelId}`, target: meta(vis), denial: BAD, grant: true })),
      { path: `${API}/users/${fx.hermit.id}/subscriptions/${fx.channels.public.channelId}`, target: { vis: 'hiddenUser', needs: 'meta' }, denial: BAD, grant: true },
    ],
  },
  'GET /api/v1/users/{user_id}/channels': {
    probes: (fx) => [
      { path: `${API}/users/${fx.insider.id}/channels` },
      { path: `${API}/users/${fx.hermit.id}/channels`, target: { vis: 'hiddenUser', needs: 'meta' }, denial: BAD, grant: true },
    ],
  },
  'GET /api/v1/users/me/subscriptions': {
    probes: () => [{ path: `${API}/users/me/subscriptions`, params: { include_subscribers: true } }],
  },
  'POST /api/v1/users/me/subscriptions': {
    // Another organization's user would create channels of these names in its own organization.
    probes: (fx, c) => c === 'otherOrgHome' ? [] : [
      ...forChannels((vis) => ({ path: `${API}/users/me/subscriptions`, params: { subscriptions: [{ name: fx.channels[vis].channelName }] }, target: meta(vis), denial: BAD })),
      ...forChannels((vis) => ({
        path: `${API}/users/me/subscriptions`,
        params: { subscriptions: [{ name: fx.channels[vis].channelName }], principals: [fx.fixtureBot.id] },
        target: meta(vis),
        denial: BAD,
      })),
    ],
    after: (fx) => resetSubscriptions(fx),
  },
  // Every name is taken for everyone, whether or not the caller may see the channel that has it.
  'POST /api/v1/channels/create': {
    probes: (fx, c) =>
      c === 'otherOrgHome'
        ? []
        : forChannels((vis) => ({ path: `${API}/channels/create`, params: { name: fx.channels[vis].channelName, subscribers: [] }, always: { status: 409, code: 'CHANNEL_ALREADY_EXISTS' } })),
  },
  'PATCH /api/v1/users/me/subscriptions': {
    probes: (fx, c) => c === 'otherOrgHome' ? [] : [
      ...forChannels((vis) => ({ path: `${API}/users/me/subscriptions`, params: { add: [{ name: fx.channels[vis].channelName }] }, target: meta(vis), denial: BAD })),
      ...forChannels((vis) => ({ path: `${API}/users/me/subscriptions`, params: { delete: [fx.channels[vis].channelName] }, target: meta(vis), denial: 'either' })),
    ],
    after: (fx) => resetSubscriptions(fx),
  },
  'DELETE /api/v1/users/me/subscriptions': {
    probes: (fx) => forChannels((vis) => ({ path: `${API}/users/me/subscriptions`, params: { subscriptions: [fx.channels[vis].channelName] }, target: meta(vis), denial: 'either' })),
    after: (fx) => resetSubscriptions(fx),
  },
  'POST /api/v1/users/me/subscriptions/properties': {
    probes: (fx) =>
      forChannels((vis) => ({
        path: `${API}/users/me/subscriptions/properties`,
        params: { subscription_data: [{ stream_id: fx.channels[vis].channelId, property: 'pin_to_top', value: true }] },
        target: meta(vis),
        denial: BAD,
      })),
  },
  'PATCH /api/v1/users/me/subscriptions/{stream_id}': {
    probes: (fx) =>
      forChannels((vis) => ({ path: `${API}/users/me/subscriptions/${fx.channels[vis].channelId}`, params: { property: 'pin_to_top', value: true }, target: meta(vis), denial: BAD })),
  },
  'PATCH /api/v1/users/me/subscriptions/muted_topics': {
    probes: (fx) => [
      ...forChannels((vis) => ({ path: `${API}/users/me/subscriptions/muted_topics`, params: { stream_id: fx.channels[vis].channelId, topic: 'probe', op: 'add' }, target: subscriberLevel(vis), denial: BAD })),
      ...forChannels((vis) => ({ path: `${API}/users/me/subscriptions/muted_topics`, params: { stream: fx.channels[vis].channelName, topic: 'probe', op: 'remove' }, target: subscriberLevel(vis), denial: BAD })),
    ],
  },
  'GET /api/v1/users/me/{stream_id}/topics': {
    probes: (fx) => forChannels((vis) => ({ path: `${API}/users/me/${fx.channels[vis].channelId}/topics`, target: subscriberLevel(vis), denial: BAD, grant: true })),
  },
  'POST /api/v1/user_topics': {
    probes: (fx) => forChannels((vis) => ({ path: `${API}/user_topics`, params: { stream_id: fx.channels[vis].channelId, topic: 'probe', visibility_policy: 1 }, target: subscriberLevel(vis), denial: BAD })),
  },
  'GET /api/v1/channel_folders': plain('/channel_folders', { include_archived: true }),
  'PATCH /api/v1/channel_folders': plain('/channel_folders', { order: [] }),
  'POST /api/v1/channel_folders/create': {
    probes: (_fx, c) => [{ path: `${API}/channel_folders/create`, params: { name: `probe ${c}`, description: '' } }],
  },
  'PATCH /api/v1/channel_folders/{channel_folder_id}': {
    probes: () => [{ path: `${API}/channel_folders/1`, params: { description: 'probe' } }],
  },
};
