// Reducers for a user's own data (alert words, drafts, scheduled messages, reminders, muted
// users, saved snippets, navigation views, devices) and statuses.
import type { Reducer } from './types.js';

const alertWords: Reducer = (state, e) => {
  if (state.alert_words) state.alert_words = e.alert_words;
};

const drafts: Reducer = (state, e) => {
  const list: Array<{ id: number; timestamp: number }> | undefined = state.drafts;
  if (!list) return;
  if (e.op === 'add') list.push(...e.drafts);
  else if (e.op === 'update') list[list.findIndex((d) => d.id === e.draft.id)] = e.draft;
  else list.splice(list.findIndex((d) => d.id === e.draft_id), 1);
  // Listed by last edit.
  list.sort((a, b) => a.timestamp - b.timestamp || a.id - b.id);
};

type Pending = { scheduled_delivery_timestamp: number };
/** Unsent scheduled messages and reminders are listed by delivery time, then id. */
const byDelivery = <T extends Pending>(list: T[], id: (x: T) => number) =>
  list.sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || id(a) - id(b));

const scheduledMessages: Reducer = (state, e) => {
  const list: Array<Pending & { scheduled_message_id: number }> | undefined = state.scheduled_messages;
  if (!list) return;
  if (e.op === 'add') list.push(...e.scheduled_messages);
  else if (e.op === 'update') list[list.findIndex((m) => m.scheduled_message_id === e.scheduled_message.scheduled_message_id)] = e.scheduled_message;
  else list.splice(list.findIndex((m) => m.scheduled_message_id === e.scheduled_message_id), 1);
  byDelivery(list, (m) => m.scheduled_message_id);
};

const reminders: Reducer = (state, e) => {
  const list: Array<Pending & { reminder_id: number }> | undefined = state.reminders;
  if (!list) return;
  if (e.op === 'add') list.push(...e.reminders);
  else list.splice(list.findIndex((r) => r.reminder_id === e.reminder_id), 1);
  byDelivery(list, (r) => r.reminder_id);
};

const mutedUsers: Reducer = (state, e) => {
  if (state.muted_users) state.muted_users = e.muted_users;
};

const userStatus: Reducer = (state, e) => {
  if (!state.user_status) return;
  const key = String(e.user_id);
  const s: Record<string, unknown> = { ...state.user_status[key] };
  if ('away' in e) {
    if (e.away) s.away = true;
    else delete s.away;
  }
  if ('status_text' in e) {
    if (e.status_text) s.status_text = e.status_text;
    else delete s.status_text;
  }
  if ('emoji_name' in e) {
    if (e.emoji_name) Object.assign(s, { emoji_name: e.emoji_name, emoji_code: e.emoji_code, reaction_type: e.reaction_type });
    else for (const k of ['emoji_name', 'emoji_code', 'reaction_type']) delete s[k];
  }
  if (Object.keys(s).length === 0) delete state.user_status[key];
  else state.user_status[key] = s;
};

const savedSnippets: Reducer = (state, e) => {
  const list: Array<{ id: number }> | undefined = state.saved_snippets;
  if (!list) return;
  const id = e.op === 'remove' ? e.saved_snippet_id : e.saved_snippet.id;
  const i = list.findIndex((s) => s.id === id);
  if (e.op === 'remove') list.splice(i, 1);
  else if (e.op === 'update') list[i] = e.saved_snippet;
  else list.push(e.saved_snippet);
};

const navigationView: Reducer = (state, e) => {
  const list: Array<{ fragment: string }> | undefined = state.navigation_views;
  if (!list) return;
  const i = list.findIndex((v) => v.fragment === (e.op === 'add' ? e.navigation_view.fragment : e.fragment));
  if (e.op === 'remove') list.splice(i, 1);
  else if (e.op === 'update') list[i] = { ...list[i]!, ...e.data };
  else list.push(e.navigation_view);
};

/** A new device knows nothing of push; an update carries only what changed. */
const device: Reducer = (state, e) => {
  const devices: Record<string, Record<string, unknown>> | undefined = state.devices;
  if (!devices) return;
  const { type: _type, op, device_id: id, id: _id, ...changed } = e;
  if (op === 'add') {
    devices[String(id)] = {
      push_key_id: null,
      push_token_id: null,
      pending_push_token_id: null,
      push_token_last_updated_timestamp: null,
      push_registration_error_code: null,
    };
  } else if (op === 'update') Object.assign(devices[String(id)]!, changed);
  else delete devices[String(id)];
};

export const personalReducers: Record<string, Reducer> = {
  alert_words: alertWords,
  drafts,
  scheduled_messages: scheduledMessages,
  reminders,
  muted_users: mutedUsers,
  user_status: userStatus,
  saved_snippets: savedSnippets,
  navigation_view: navigationView,
  device,
};
