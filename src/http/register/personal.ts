// A user's own data in POST /register (alert_words, drafts, scheduled_messages, reminders,
// muted_users, saved_snippets, navigation_views, devices) and the statuses of everyone
// (user_status).
import { formatSnippet } from '../../actors/realm/personal.js';
import { formatDraft } from '../../actors/conversations/drafts.js';
import { formatReminder, formatScheduledMessage } from '../../actors/conversations/scheduled.js';
import { listAlertWords } from '../../store/alert-words.js';
import { listDrafts } from '../../store/drafts.js';
import { listPending } from '../../store/scheduled-messages.js';
import { listViews } from '../../store/navigation-views.js';
import { listSnippets } from '../../store/saved-snippets.js';
import { formatStatus } from '../../domain/personal.js';
import { listStatuses } from '../../store/user-status.js';
import { clientDevicesOfUser } from '../../store/push.js';
import type { StateProvider } from './state.js';

export const alertWordsState: StateProvider = {
  types: ['alert_words'],
  spectators: false,
  async fetch(ctx) {
    return { alert_words: await listAlertWords(ctx.app.db, ctx.user!.id) };
  },
};

/** The most drafts register lists (the most recently edited; GET /drafts has them all). */
const MAX_DRAFTS_IN_REGISTER = 1000;

/** The most recently edited drafts; none while the user does not synchronize them. */
export const draftsState: StateProvider = {
  types: ['drafts'],
  spectators: false,
  async fetch(ctx) {
    const user = ctx.user!;
    if (!user.settings.enable_drafts_synchronization) return { drafts: [] };
    return { drafts: (await listDrafts(ctx.app.db, user.id, MAX_DRAFTS_IN_REGISTER)).map(formatDraft) };
  },
};

/** Unsent scheduled messages, failed ones included, the soonest first. */
export const scheduledMessagesState: StateProvider = {
  types: ['scheduled_messages'],
  spectators: false,
  async fetch(ctx) {
    return { scheduled_messages: (await listPending(ctx.app.db, ctx.user!.id, 'message')).map(formatScheduledMessage) };
  },
};

export const remindersState: StateProvider = {
  types: ['reminders'],
  spectators: false,
  async fetch(ctx) {
    return { reminders: (await listPending(ctx.app.db, ctx.user!.id, 'reminder')).map(formatReminder) };
  },
};

export const mutedUsersState: StateProvider = {
  types: ['muted_users'],
  spectators: false,
  fetch(ctx) {
    return Promise.resolve({ muted_users: ctx.realm.state.mutes.of(ctx.user!.id) });
  },
};

export const userStatusState: StateProvider = {
  types: ['user_status'],
  spectators: false,
  async fetch(ctx) {
    const state = ctx.realm.state;
    const byUser = new Map((await listStatuses(ctx.app.db, state.id)).map((s) => [s.user_id, s]));
    const out: Record<string, Record<string, unknown>> = {};
    for (const u of state.users.values()) {
      if (!u.is_active || !state.canAccessUser(ctx.user!.id, u.id)) continue;
      const s = formatStatus(byUser.get(u.id) ?? null, u.settings.presence_enabled);
      if (Object.keys(s).length > 0) out[String(u.id)] = s;
    }
    return { user_status: out };
  },
};

export const savedSnippetsState: StateProvider = {
  types: ['saved_snippets'],
  spectators: false,
  async fetch(ctx) {
    return { saved_snippets: (await listSnippets(ctx.app.db, ctx.user!.id)).map(formatSnippet) };
  },
};

export const navigationViewsState: StateProvider = {
  types: ['navigation_views'],
  spectators: false,
  async fetch(ctx) {
    return { navigation_views: await listViews(ctx.app.db, ctx.user!.id) };
  },
};

/**
 * The user's logged-in devices by id, with what push knows of each. Parley hands a provider token
 * to the push service with each notification, so a token is in use once registered: never pending,
 * never failed.
 */
export const devicesState: StateProvider = {
  types: ['device'],
  spectators: false,
  async fetch(ctx) {
    const devices: Record<string, Record<string, unknown>> = {};
    for (const d of await clientDevicesOfUser(ctx.app.db, ctx.user!.id)) {
      devices[String(d.device_id)] = {
        push_key_id: d.push_key_id,
        push_token_id: d.token_id,
        pending_push_token_id: null,
        push_token_last_updated_timestamp: d.token_updated === null ? null : Math.floor(d.token_updated / 1000),
        push_registration_error_code: null,
      };
    }
    return { devices };
  },
};
