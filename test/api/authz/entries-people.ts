// Matrix entries for users, bots, presence, statuses, user groups and personal settings. The
// hidden user (whom the guest may not access) is the target of every per-user route.
import { assertSuccess } from '../../helpers/assert.js';
import { multipart, PNG } from '../../helpers/people.js';
import { API, type Fixture } from './fixture.js';
import { BAD, BAD_OR_NOT_ADMIN, plain, type Matrix, type Probe } from './entry.js';

const hidden = { vis: 'hiddenUser' as const, needs: 'meta' as const };
const hermitPaths = (fx: Fixture, suffix = ''): Probe[] =>
  [String(fx.hermit.id), fx.hermit.email].map((who) => ({ path: `${API}/users/${encodeURIComponent(who)}${suffix}`, target: hidden, denial: BAD }));

async function reactivate(fx: Fixture, userId: number): Promise<void> {
  const u = fx.realm.handle.state.users.get(userId);
  if (u && !u.is_active) await fx.realm.handle.ask('user.setActive', { userId, active: true, actorId: null });
}

/** The group the group routes aim at: an ordinary group the insider created. */
const groupOf = (fx: Fixture): number => fx.groupId;

export const peopleEntries: Matrix = {
  'GET /api/v1/users': {
    probes: (fx) => [
      { path: `${API}/users`, params: { include_custom_profile_fields: true } },
      { path: `${API}/users`, params: { user_ids: [fx.hermit.id], include_custom_profile_fields: true }, target: hidden, denial: 'either' },
    ],
  },
  'POST /api/v1/users': {
    probes: (_fx, c) => [{ path: `${API}/users`, params: { email: `probe-${c}@example.com`, password: 'probe-password-1', full_name: `Probe ${c}` } }],
  },
  'GET /api/v1/users/me': plain('/users/me'),
  'DELETE /api/v1/users/me': {
    destructive: true,
    probes: () => [{ path: `${API}/users/me` }],
    after: async (fx, c) => {
      const u = fx.userOf(c);
      if (!u || c === 'deactivated' || c === 'otherOrgHome') return;
      if (!fx.realm.handle.state.users.get(u.id)!.is_active) {
        await reactivate(fx, u.id);
        await fx.registerQueue(c as 'guest');
      }
    },
  },
  'GET /api/v1/users/{user_id}': {
    probes: (fx) => [...hermitPaths(fx).map((p) => ({ ...p, grant: true })), { path: `${API}/users/${fx.hermit.id}`, params: { include_custom_profile_fields: true }, target: hidden, denial: BAD }],
  },
  'PATCH /api/v1/users/{user_id}': {
    probes: (fx) => hermitPaths(fx).map((p) => ({ ...p, params: { full_name: 'Hermit zqhiddenname' }, denial: BAD_OR_NOT_ADMIN })),
  },
  'DELETE /api/v1/users/{user_id}': {
    destructive: true,
    probes: (fx) => hermitPaths(fx).slice(0, 1).map((p) => ({ ...p, denial: BAD_OR_NOT_ADMIN })),
    after: (fx) => reactivate(fx, fx.hermit.id),
  },
  'POST /api/v1/users/{user_id}/reactivate': {
    probes: (fx) => hermitPaths(fx, '/reactivate').slice(0, 1).map((p) => ({ ...p, denial: BAD_OR_NOT_ADMIN })),
  },
  'GET /api/v1/users/{user_id}/status': {
    probes: (fx) => hermitPaths(fx, '/status').slice(0, 1).map((p) => ({ ...p, grant: true })),
  },
  'POST /api/v1/users/{user_id}/status': {
    probes: (fx) => hermitPaths(fx, '/status').slice(0, 1).map((p) => ({ ...p, params: { status_text: 'zqhiddenstatus' } })),
  },
  'GET /api/v1/users/{user_id_or_email}/presence': {
    probes: (fx) => hermitPaths(fx, '/presence').map((p) => ({ ...p, grant: true })),
  },
  'GET /api/v1/realm/presence': plain('/realm/presence'),
  'POST /api/v1/users/me/presence': {
    probes: () => [
      { path: `${API}/users/me/presence`, params: { status: 'active', last_update_id: -1 } },
      { path: `${API}/users/me/presence`, params: { status: 'idle' } },
      { path: `${API}/users/me/presence`, params: { status: 'active', slim_presence: true } },
    ],
  },
  'GET /avatar/{user_id}': {
    probes: (fx) => [{ path: `/avatar/${fx.hermit.id}` }, { path: `/avatar/${encodeURIComponent(fx.hermit.email)}` }],
  },
  'GET /avatar/{user_id}/medium': {
    probes: (fx) => [{ path: `/avatar/${fx.hermit.id}/medium` }],
  },
  'GET /user_avatars/{realm_id}/{file_name}': {
    probes: (fx) => [{ path: `/user_avatars/${fx.realm.id}/probe.png` }],
  },
  'POST /api/v1/users/me/avatar': {
    probes: () => [{ path: `${API}/users/me/avatar`, body: multipart({}, { file: { filename: 'me.png', data: PNG } }) }],
  },
  'DELETE /api/v1/users/me/avatar': plain('/users/me/avatar'),
  'GET /api/v1/users/me/alert_words': plain('/users/me/alert_words'),
  // Muting the hermit: whoever may see the user may mute them (and unmutes again after).
  'POST /api/v1/users/me/muted_users/{muted_user_id}': {
    probes: (fx) => [{ path: `${API}/users/me/muted_users/${fx.hermit.id}`, target: hidden, denial: BAD, grant: true }],
    after: async (fx, c) => {
      const u = fx.userOf(c);
      if (u && fx.realm.handle.state.mutes.has(u.id, fx.hermit.id)) assertSuccess(await u.delete(`${API}/users/me/muted_users/${fx.hermit.id}`));
    },
  },
  // Nobody has the hermit muted here: refused to all, as unknown or as not muted.
  'DELETE /api/v1/users/me/muted_users/{muted_user_id}': {
    probes: (fx) => [{ path: `${API}/users/me/muted_users/${fx.hermit.id}`, target: hidden, denial: BAD }],
  },
  'POST /api/v1/users/me/alert_words': plain('/users/me/alert_words', { alert_words: ['probe'] }),
  'DELETE /api/v1/users/me/alert_words': plain('/users/me/alert_words', { alert_words: ['probe'] }),
  'PATCH /api/v1/users/me/profile_data': plain('/users/me/profile_data', { data: [] }),
  'DELETE /api/v1/users/me/profile_data': plain('/users/me/profile_data', { data: [] }),
  'POST /api/v1/users/me/status': plain('/users/me/status', { status_text: 'probing' }),
  'PATCH /api/v1/settings': plain('/settings', { enter_sends: true }),
  'POST /api/v1/bots': {
    probes: (_fx, c) => [{ path: `${API}/bots`, params: { full_name: `Probe bot ${c}`, short_name: `probe-${c.toLowerCase()}` } }],
  },
  'PATCH /api/v1/bots/{bot_id}': {
    probes: (fx) => [{ path: `${API}/bots/${fx.fixtureBot.id}`, params: { full_name: 'Fixture Bot' } }],
  },
  'DELETE /api/v1/bots/{bot_id}': {
    destructive: true,
    probes: (fx) => [{ path: `${API}/bots/${fx.fixtureBot.id}` }],
    after: (fx) => reactivate(fx, fx.fixtureBot.id),
  },
  'GET /api/v1/bots/{bot_id}/api_key': {
    probes: (fx) => [{ path: `${API}/bots/${fx.fixtureBot.id}/api_key` }],
  },
  'POST /api/v1/bots/{bot_id}/api_key/regenerate': {
    destructive: true,
    probes: (fx) => [{ path: `${API}/bots/${fx.fixtureBot.id}/api_key/regenerate` }],
  },
  'GET /api/v1/user_groups': plain('/user_groups', { include_deactivated_groups: true }),
  'POST /api/v1/user_groups/create': {
    probes: (fx, c) => [{ path: `${API}/user_groups/create`, params: { name: `probe ${c}`, description: '', members: [fx.hermit.id] }, target: hidden, denial: BAD }],
  },
  'PATCH /api/v1/user_groups/{user_group_id}': {
    probes: (fx) => [{ path: `${API}/user_groups/${groupOf(fx)}`, params: { description: 'probe' } }],
  },
  'POST /api/v1/user_groups/{user_group_id}/deactivate': {
    destructive: true,
    probes: (fx) => [{ path: `${API}/user_groups/${groupOf(fx)}/deactivate` }],
    after: async (fx) => {
      await fx.realm.owner.patch(`${API}/user_groups/${groupOf(fx)}`, { deactivated: false });
    },
  },
  'GET /api/v1/user_groups/{user_group_id}/members': {
    probes: (fx) => [{ path: `${API}/user_groups/${groupOf(fx)}/members` }],
  },
  'POST /api/v1/user_groups/{user_group_id}/members': {
    probes: (fx) => [{ path: `${API}/user_groups/${groupOf(fx)}/members`, params: { add: [fx.hermit.id] }, target: hidden, denial: BAD }],
  },
  'GET /api/v1/user_groups/{user_group_id}/members/{user_id}': {
    probes: (fx) => [{ path: `${API}/user_groups/${groupOf(fx)}/members/${fx.hermit.id}`, target: hidden, denial: 'either' }],
  },
  'GET /api/v1/user_groups/{user_group_id}/subgroups': {
    probes: (fx) => [{ path: `${API}/user_groups/${groupOf(fx)}/subgroups` }],
  },
  'POST /api/v1/user_groups/{user_group_id}/subgroups': {
    probes: (fx) => [{ path: `${API}/user_groups/${groupOf(fx)}/subgroups`, params: { add: [] } }],
  },
};

/** The group the user-group entries aim at (created by the insider, holding the hidden user). */
export async function seedGroup(fx: Fixture): Promise<void> {
  const r = await fx.insider.post(`${API}/user_groups/create`, { name: 'Probe group', description: '', members: [fx.insider.id, fx.hermit.id] });
  fx.groupId = assertSuccess(r).group_id as number;
}
