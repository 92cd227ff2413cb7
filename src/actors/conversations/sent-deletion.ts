// Deleting what accounts sent, by kind of conversation (a deactivation's `actions`): the messages
// are listed, then each conversation's owner deletes those of its own (delete.ts, deleteListed),
// so that every deletion is ordered with the other writes of its conversation.
import { sentBy, type PlacedMessage } from '../../store/message-edits.js';
import type { RealmHandle } from '../realm/actor.js';
import { conversationKeyOf, type ConversationKey } from './conversations.js';

export interface SentKinds {
  /** Messages in channels anyone in the organization may join (web-public ones included). */
  readonly publicChannels: boolean;
  /** Messages in private channels. */
  readonly privateChannels: boolean;
  readonly directMessages: boolean;
}

/**
 * Listings of what is left. A message moved to another channel between a listing and its owner's
 * turn is not its owner's any more: the next listing finds it where it went.
 */
const LISTINGS = 3;

function wanted(realm: RealmHandle, m: PlacedMessage, kinds: SentKinds): boolean {
  if (m.channel_id === null) return kinds.directMessages;
  const channel = realm.state.channels.get(m.channel_id);
  if (!channel) return false;
  return channel.invite_only ? kinds.privateChannels : kinds.publicChannels;
}

/** Delete the messages of these kinds that these accounts sent; the number deleted. */
export async function deleteSentMessages(realm: RealmHandle, senderIds: readonly number[], kinds: SentKinds): Promise<number> {
  let deleted = 0;
  for (let listing = 0; listing < LISTINGS; listing++) {
    const owners = new Map<string, { key: ConversationKey; ids: number[] }>();
    for (const m of await sentBy(realm.services.db, realm.id, senderIds)) {
      if (!wanted(realm, m, kinds)) continue;
      const key = conversationKeyOf(m);
      const name = key.kind === 'channel' ? `channel ${key.channelId}` : `dm ${key.dmKey}`;
      const owner = owners.get(name);
      if (owner) owner.ids.push(m.id);
      else owners.set(name, { key, ids: [m.id] });
    }
    if (owners.size === 0) break;
    for (const { key, ids } of owners.values()) deleted += await realm.conversations.ask(key, 'deleteListed', { messageIds: ids });
  }
  return deleted;
}
