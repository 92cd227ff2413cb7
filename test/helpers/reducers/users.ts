// Reducers for the bots a user administers (realm_bots).
import type { Reducer } from './types.js';

const realmBot: Reducer = (state, e) => {
  const bots: Record<string, unknown>[] | undefined = state.realm_bots;
  if (!bots) return;
  const i = bots.findIndex((b) => b.user_id === e.bot.user_id);
  switch (e.op) {
    case 'add':
      if (i >= 0) bots.splice(i, 1);
      bots.push(e.bot);
      return;
    case 'update':
      if (i >= 0) bots[i] = { ...bots[i], ...e.bot };
      return;
    case 'delete':
    case 'remove':
      if (i >= 0) bots.splice(i, 1);
      return;
  }
};

export const userReducers: Record<string, Reducer> = {
  realm_bot: realmBot,
};
