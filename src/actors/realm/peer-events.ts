// subscription peer_add and peer_remove: users joined or left channels' subscriber lists, told to
// the others who see those channels.
//
// metadataAudience walks every user (3.6 ms at 100,000), and an event reaches each recipient's
// queue: one walk and one event a channel made a deactivation in 20 channels cost 570 ms and
// 20 deliveries to everyone. So channels whose changed users are the same are told together: the
// public and web-public ones in one event to the organization's members (who see them all), and
// to each guest the ones it sees (web-public ones and those it is subscribed to), as
// hasMetadataAccess (src/domain/channels.ts) has it; each private channel, whose audience is its
// own, in an event of its own.
import { peerAdd, peerRemove } from '../../domain/events/subscriptions.js';
import { isGuest } from '../../domain/roles.js';
import { groupBy } from '../../group-by.js';
import type { EventSpec } from '../event-sequencer.js';
import { metadataAudience } from './channel-view.js';
import type { ChannelRecord } from './channel-index.js';
import type { RealmState } from './state.js';

/** Active users, as those who see every public channel and the guests who may not. */
interface Population {
  readonly members: readonly number[];
  readonly guests: readonly number[];
}

function populationOf(state: RealmState): Population {
  const members: number[] = [];
  const guests: number[] = [];
  for (const u of state.users.values()) if (u.is_active) (isGuest(u.role) ? guests : members).push(u.id);
  return { members, guests };
}

const ascending = (a: number, b: number) => a - b;

/**
 * The peer events for `changed` (channel id → the users who joined or left it), to whoever sees
 * each channel but those users and `alsoExcept`. Channels the realm does not know are left out.
 */
export function peerEvents(
  state: RealmState,
  op: 'peer_add' | 'peer_remove',
  changed: ReadonlyMap<number, readonly number[]>,
  alsoExcept: ReadonlySet<number> = new Set(),
): EventSpec[] {
  const build = (streamIds: number[], userIds: readonly number[], recipients: number[]): EventSpec => {
    const payload = { stream_ids: streamIds, user_ids: [...userIds] };
    return op === 'peer_add'
      ? peerAdd.build({ op, ...payload }, { userIds: recipients })
      : peerRemove.build({ op, ...payload }, { userIds: recipients });
  };
  const entries: Array<{ channel: ChannelRecord; users: number[] }> = [];
  for (const [channelId, users] of [...changed].sort(([a], [b]) => a - b)) {
    const channel = state.channels.get(channelId);
    if (channel && users.length > 0) entries.push({ channel, users: [...users].sort(ascending) });
  }
  let population: Population | null = null;
  const events: EventSpec[] = [];
  for (const group of groupBy(entries, (e) => e.users.join(',')).values()) {
    const users = group[0]!.users;
    const except = new Set([...users, ...alsoExcept]);
    const open = group.map((e) => e.channel).filter((c) => !c.invite_only);
    if (open.length > 0) {
      population ??= populationOf(state);
      const members = population.members.filter((id) => !except.has(id));
      if (members.length > 0) events.push(build(open.map((c) => c.id), users, members));
      const guestSights = population.guests
        .filter((id) => !except.has(id))
        .map((id) => ({ id, sees: open.filter((c) => c.is_web_public || state.channels.isSubscribed(id, c.id)).map((c) => c.id) }))
        .filter((g) => g.sees.length > 0);
      for (const same of groupBy(guestSights, (g) => g.sees.join(',')).values()) {
        events.push(build(same[0]!.sees, users, same.map((g) => g.id)));
      }
    }
    for (const { channel } of group) {
      if (!channel.invite_only) continue;
      const peers = metadataAudience(state, channel).filter((id) => !except.has(id));
      if (peers.length > 0) events.push(build([channel.id], users, peers));
    }
  }
  return events;
}
