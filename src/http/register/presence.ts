// The `presences` and `presence_last_update_id` members of POST /register: modern entries keyed
// by user id with slim_presence, legacy entries keyed by email otherwise, limited to
// presence_history_limit_days.
import type { StateProvider } from './state.js';

export const presenceState: StateProvider = {
  types: ['presence'],
  spectators: false,
  async fetch(ctx) {
    const { realm, user, options } = ctx;
    await realm.presence.ready();
    const answer = realm.presence.query({
      viewerId: user!.id,
      format: options.slimPresence ? 'modern' : 'legacy',
      sinceUpdateId: null,
      historyDays: options.presenceHistoryLimitDays,
    });
    return {
      presences: answer.presences,
      presence_last_update_id: answer.lastUpdateId,
      server_timestamp: realm.services.clock.now() / 1000,
    };
  },
};
