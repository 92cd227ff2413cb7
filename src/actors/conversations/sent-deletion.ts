// Deleting listed messages from outside their conversations (what accounts sent, by kind of
// conversation, for a deactivation's `actions`; retention.ts's expired messages): the messages are
// listed, then each conversation's owner deletes those of its own (delete.ts, deleteListed), so
// that every deletion is ordered with the other writes of its conversation.
import { sentBy, type PlacedMessage } from '../../store/message-edits.js';
import type { RealmHandle } from '../realm/actor.js';
import { groupBy } from '../../group-by.js';
import { conversationKeyOf } from './conversations.js';

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

/** The name of a message's conversation, the same for every message of it. */
const conversationName = (m: PlacedMessage): string => (m.channel_id !== null ? `channel ${m.channel_id}` : `dm ${m.dm_key}`);

/** Have each conversation's owner delete its own of these listed messages. */
export async function deletePlaced(realm: RealmHandle, listed: readonly PlacedMessage[]): Promise<void> {
  for (const messages of groupBy(listed, conversationName).values()) {
    await realm.conversations.ask(conversationKeyOf(messages[0]!), 'deleteListed', { messageIds: messages.map((m) => m.id) });
  }
}

/** Delete the messages of these kinds that these accounts sent. */
export async function deleteSentMessages(realm: RealmHandle, senderIds: readonly number[], kinds: SentKinds): Promise<void> {
  for (let listing = 0; listing < LISTINGS; listing++) {
    const sent = (await sentBy(realm.services.db, realm.id, senderIds)).filter((m) => wanted(realm, m, kinds));
    if (sent.length === 0) return;
    await deletePlaced(realm, sent);
  }
}
