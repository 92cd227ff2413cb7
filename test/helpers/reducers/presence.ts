// Reducer for `presence` events: modern events (simplified_presence_events) merge `presences`;
// legacy events replace the user's entry keyed by email.
import type { Reducer } from './types.js';

const presence: Reducer = (state, e) => {
  if (!state.presences) return;
  if (e.presences) {
    Object.assign(state.presences, e.presences);
    return;
  }
  const w = e.presence.website;
  state.presences[e.email] = { website: w, aggregated: { client: w.client, status: w.status, timestamp: w.timestamp } };
};

export const presenceReducers: Record<string, Reducer> = { presence };
