// `invites_changed` carries no data: clients refetch GET /invites; register state is unchanged.
import type { Reducer } from './types.js';

export const inviteReducers: Record<string, Reducer> = { invites_changed: () => undefined };
