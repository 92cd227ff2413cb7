// A channel's first_message_id changes with its first send, and with deletes and moves that take
// its oldest message away. Clients without the channel's messages (those who see it without
// being subscribed) learn the new value only from a stream update event.
import { streamUpdate } from '../../domain/events/channels.js';
import type { Emit } from '../realm-events.js';
import { metadataAudience } from '../realm/channel-view.js';
import type { RealmState } from '../realm/state.js';

/** Tell whoever sees the channel its first message is now `first` (nothing when it already was). */
export function emitFirstMessageChange(state: RealmState, emit: Emit, channelId: number, first: number | null): void {
  const c = state.channels.get(channelId);
  if (!c || c.first_message_id === first) return;
  // Clients without archived_channels hear nothing about archived channels.
  const archived = c.is_archived ? { _archived: true } : {};
  emit(
    streamUpdate.build(
      { op: 'update', stream_id: c.id, name: c.name, property: 'first_message_id', value: first, ...archived },
      { userIds: metadataAudience(state, c) },
    ),
  );
}
