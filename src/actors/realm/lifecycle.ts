// Deactivating and reactivating an organization. Deactivation cuts off at once: API keys are
// refused (authentication checks the cached flag), browser sessions are deleted, and every queue
// and WebSocket ends before anything else could reach them.
import { errors } from '../../domain/errors.js';
import { setRealmDeactivated } from '../../store/realms.js';
import { deleteRealmSessions } from '../../store/sessions.js';
import type { RealmContext } from './actor.js';

async function setRealmActive(ctx: RealmContext, input: { readonly active: boolean }): Promise<{ deactivated: boolean }> {
  const { state } = ctx;
  if (state.realm.deactivated === !input.active) {
    throw errors.badRequest(input.active ? 'The organization is already active' : 'The organization is already deactivated');
  }
  await ctx.write(
    async (tx) => {
      await setRealmDeactivated(tx, state.id, !input.active);
      if (!input.active) await deleteRealmSessions(tx, state.id);
    },
    () => {
      state.realm = { ...state.realm, deactivated: !input.active };
      if (!input.active) ctx.realm.queues.closeAll();
    },
  );
  return { deactivated: state.realm.deactivated };
}

export const lifecycleCommands = {
  'realm.setActive': setRealmActive,
};
