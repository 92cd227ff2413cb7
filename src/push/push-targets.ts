// Who is sent a push notification for a new message, decided after the message commits:
// - never the sender, bots, deactivated accounts, or a recipient for whom it starts read;
// - not while the user is at a client (active within the offline threshold) unless they asked
//   for pushes while online (enable_online_push_notifications);
// - direct messages, mentions (direct, group, wildcard) and alert words when
//   enable_offline_push_notifications is on;
// - other channel messages when the subscription's push_notifications (null: the user's
//   enable_stream_push_notifications) is on and the channel is not muted.
// Only runs when a push service is configured (no cost otherwise).
import type { RealmHandle } from '../actors/realm/actor.js';
import { DM_BIT, FLAG_BITS, MENTION_BITS } from '../domain/flags.js';
import { OFFLINE_THRESHOLD_MS } from '../domain/presence.js';
import { subscriptionsFor } from '../store/channels.js';
import { notifyNewMessage, type PushMessage } from './push-notifier.js';

export interface CommittedMessage extends PushMessage {
  /** Every recipient with the flag bits of their user_messages row. */
  readonly recipients: ReadonlyArray<{ readonly user_id: number; readonly flags: number }>;
}

const PERSONAL_BITS = DM_BIT | MENTION_BITS | FLAG_BITS.has_alert_word;

/** The users to notify (see the rules above). */
export async function pushTargets(realm: RealmHandle, m: CommittedMessage): Promise<number[]> {
  const state = realm.state;
  const now = realm.services.clock.now();
  await realm.presence.ready();
  const targets: number[] = [];
  const channelCandidates: number[] = [];
  for (const r of m.recipients) {
    const u = state.user(r.user_id);
    if (!u || !u.is_active || u.is_bot || u.id === m.senderId || r.flags & FLAG_BITS.read) continue;
    const lastActive = realm.presence.recordOf(u.id)?.lastActive ?? null;
    const online = lastActive !== null && now - lastActive < OFFLINE_THRESHOLD_MS;
    if (online && !u.settings.enable_online_push_notifications) continue;
    if (r.flags & PERSONAL_BITS) {
      if (u.settings.enable_offline_push_notifications) targets.push(u.id);
    } else if (m.channel) {
      channelCandidates.push(u.id);
    }
  }
  if (m.channel && channelCandidates.length > 0) {
    for (const s of await subscriptionsFor(realm.services.db, m.channel.id, channelCandidates)) {
      const wanted = s.push_notifications ?? state.user(s.user_id)?.settings.enable_stream_push_notifications ?? false;
      if (s.active && !s.is_muted && wanted) targets.push(s.user_id);
    }
  }
  return targets.sort((a, b) => a - b);
}

/** After a message commits: notify its targets. Never throws; does nothing without a push service. */
export function notifyAfterCommit(realm: RealmHandle, m: CommittedMessage): void {
  if (!realm.services.config.pushServiceUrl) return;
  void pushTargets(realm, m)
    .then((targets) => notifyNewMessage(realm, m, targets))
    .catch((err: unknown) => realm.services.log.warn({ err, message: m.id }, 'push targets not computed'));
}
