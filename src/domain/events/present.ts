// From a published event to what one client receives: per-recipient fields, the client's
// capabilities and options (apply_markdown, client_extavatar), and what the viewer may see.
// Producers emit one canonical payload per change; every client-specific shape is made here.
// Payload keys starting with `_` are internal inputs of presenters and never reach clients.
import type { PublishedEvent } from '../../actors/event-sequencer.js';
import { clientComputesAvatar } from '../avatar.js';
import { canSeeDeliveryEmail } from '../emails.js';
import { inaccessibleUser } from '../user-view.js';
import { EmailVisibility } from '../user-settings.js';
import { shapeMessage } from './message-shape.js';
import { withDisplayTopics } from './topics.js';
import type { ClientEvent, PresentContext } from './view.js';

type Presenter = (e: PublishedEvent, ctx: PresentContext) => ClientEvent[];

type Obj = Record<string, unknown>;

function publicFields(o: Obj): Obj {
  let out: Obj | null = null;
  for (const k of Object.keys(o)) {
    if (k.startsWith('_')) {
      out ??= { ...o };
      delete out[k];
    }
  }
  return out ?? o;
}

/** The payload as this recipient sees it, before any type-specific shaping. */
function base(e: PublishedEvent, ctx: PresentContext): ClientEvent {
  const mine = e.perUser?.[ctx.view.userId];
  return { type: e.type, ...e.payload, ...mine, id: e.id };
}

const one = (e: ClientEvent): ClientEvent[] => [e];

const message: Presenter = (e, ctx) => {
  const ev = base(e, ctx);
  const { view, realm } = ctx;
  const m = ev.message as Obj;
  const sender = realm.user(m.sender_id as number);
  const shown = shapeMessage(m, {
    applyMarkdown: view.applyMarkdown,
    clientExtavatar: view.clientExtavatar,
    senderEmailVisibility: sender?.settings.email_address_visibility ?? EmailVisibility.everyone,
    emptyTopicDisplayName: view.capabilities.empty_topic_name ? null : realm.realm.settings.empty_topic_display_name,
  });
  const out: ClientEvent = { type: 'message', message: shown, flags: ev.flags ?? [], id: e.id };
  const local = ev._local as { queue_id: string; local_id: string } | undefined;
  if (local && local.queue_id === view.queueId) out.local_message_id = local.local_id;
  return [out];
};

const deleteMessage: Presenter = (e, ctx) => {
  const ev = base(e, ctx);
  const ids = ev.message_ids as number[];
  if (ctx.view.capabilities.bulk_message_deletion) return [ev];
  // One event per message, each with its own id from the span reserved at emit time.
  const spanIds = [...(e.spanIds ?? []), e.id];
  const { message_ids: _ids, ...rest } = ev;
  return ids.map((messageId, i) => ({ ...rest, message_id: messageId, id: spanIds[i] ?? e.id }));
};

const typing: Presenter = (e, ctx) => {
  const ev = base(e, ctx);
  if (ev.message_type === 'stream' && !ctx.view.capabilities.stream_typing_notifications) return [];
  return [ev];
};

const presence: Presenter = (e, ctx) => {
  const ev = base(e, ctx);
  if (ctx.view.capabilities.simplified_presence_events) {
    return [{ type: 'presence', presences: ev.presences, id: e.id }];
  }
  return [{ type: 'presence', user_id: ev.user_id, email: ev.email, server_timestamp: ev.server_timestamp, presence: ev.presence, id: e.id }];
};

const realmEmoji: Presenter = (e, ctx) => {
  const ev = base(e, ctx);
  if (ctx.view.capabilities.individual_emoji_changes) return [{ type: 'realm_emoji', op: ev.op, emoji: ev.emoji, id: e.id }];
  return [{ type: 'realm_emoji', op: 'update', realm_emoji: ev.realm_emoji, id: e.id }];
};

const realmLinkifiers: Presenter = (e, ctx) => (ctx.view.capabilities.linkifier_url_template ? [base(e, ctx)] : []);

const realmUser: Presenter = (e, ctx) => {
  const ev = base(e, ctx);
  const { view, realm } = ctx;
  const person = ev.person as Obj;
  const targetId = person.user_id as number;
  if (!realm.canAccessUser(view.userId, targetId)) {
    if (ev.op !== 'add' || view.capabilities.user_list_incomplete) return [];
    return [{ ...ev, person: inaccessibleUser(targetId, realm.realm.host) }];
  }
  const target = realm.user(targetId);
  const viewer = realm.user(view.userId);
  let shown = person;
  if ('delivery_email' in person && target) {
    const visible = canSeeDeliveryEmail(viewer ? { id: viewer.id, role: viewer.role } : null, {
      id: target.id,
      visibility: target.settings.email_address_visibility,
    });
    if (!visible) shown = { ...shown, delivery_email: null };
  }
  if ('avatar_url' in person && target && clientComputesAvatar(target, view.clientExtavatar)) {
    shown = { ...shown, avatar_url: null };
  }
  return [{ ...ev, person: shown }];
};

/** A status is news only to those who may access its user (as in register's user_status). */
const userStatus: Presenter = (e, ctx) => {
  const ev = base(e, ctx);
  return ctx.realm.canAccessUser(ctx.view.userId, ev.user_id as number) ? [ev] : [];
};

const userGroup: Presenter = (e, ctx) => {
  const ev = base(e, ctx);
  if (ctx.view.capabilities.include_deactivated_groups) return [ev];
  const data = ev.data as Obj | undefined;
  if (ev.op === 'update' && data && data.deactivated === true) return [{ type: 'user_group', op: 'remove', group_id: ev.group_id, id: e.id }];
  if (ev.op === 'update' && data && data.deactivated === false && ev._group) {
    return [{ type: 'user_group', op: 'add', group: ev._group, id: e.id }];
  }
  if (ev._group_deactivated === true) return [];
  return [ev];
};

const stream: Presenter = (e, ctx) => {
  const ev = base(e, ctx);
  if (ctx.view.capabilities.archived_channels) return [ev];
  if (ev.op === 'update' && ev.property === 'is_archived') {
    const s = ev._stream as Obj;
    return ev.value === true
      ? [{ type: 'stream', op: 'delete', streams: [s], stream_ids: [ev.stream_id], id: e.id }]
      : [{ type: 'stream', op: 'create', streams: [s], id: e.id }];
  }
  if (ev._archived === true) return [];
  return [ev];
};

/** Subscription notification settings: null means "the user's default" (notification_settings_null). */
export const NOTIFICATION_DEFAULTS: Readonly<Record<string, string>> = {
  desktop_notifications: 'enable_stream_desktop_notifications',
  email_notifications: 'enable_stream_email_notifications',
  push_notifications: 'enable_stream_push_notifications',
  audible_notifications: 'enable_stream_audible_notifications',
  wildcard_mentions_notify: 'wildcard_mentions_notify',
};

/** Replace null notification settings of a subscription object by the user's defaults. */
export function resolveNotificationDefaults(sub: Obj, userSettings: Readonly<Record<string, unknown>>): Obj {
  let out: Obj | null = null;
  for (const [field, setting] of Object.entries(NOTIFICATION_DEFAULTS)) {
    if (field in sub && sub[field] === null) {
      out ??= { ...sub };
      out[field] = userSettings[setting] ?? false;
    }
  }
  return out ?? sub;
}

const subscription: Presenter = (e, ctx) => {
  const ev = base(e, ctx);
  if (ctx.view.capabilities.notification_settings_null) return [ev];
  const settings: Readonly<Record<string, unknown>> = ctx.realm.user(ctx.view.userId)?.settings ?? {};
  if (ev.op === 'update' && typeof ev.property === 'string' && ev.property in NOTIFICATION_DEFAULTS && ev.value === null) {
    return [{ ...ev, value: settings[NOTIFICATION_DEFAULTS[ev.property]!] ?? false }];
  }
  if (ev.op === 'add' && Array.isArray(ev.subscriptions)) {
    return [{ ...ev, subscriptions: (ev.subscriptions as Obj[]).map((s) => resolveNotificationDefaults(s, settings)) }];
  }
  return [ev];
};

/** Topics nested in flag details: the display name for clients without empty_topic_name. */
const updateMessageFlags: Presenter = (e, ctx) => {
  const ev = base(e, ctx);
  const details = ev.message_details as Record<string, Obj> | undefined;
  if (!details || ctx.view.capabilities.empty_topic_name) return [ev];
  const display = ctx.realm.realm.settings.empty_topic_display_name;
  return [{ ...ev, message_details: Object.fromEntries(Object.entries(details).map(([id, d]) => [id, withDisplayTopics(d, display)])) }];
};

const typingEditMessage: Presenter = (e, ctx) => {
  const ev = base(e, ctx);
  const recipient = ev.recipient as Obj;
  if (ctx.view.capabilities.empty_topic_name || recipient.type !== 'channel') return [ev];
  return [{ ...ev, recipient: withDisplayTopics(recipient, ctx.realm.realm.settings.empty_topic_display_name) }];
};

const presenters: Readonly<Record<string, Presenter>> = {
  message,
  delete_message: deleteMessage,
  typing,
  presence,
  realm_emoji: realmEmoji,
  realm_linkifiers: realmLinkifiers,
  realm_user: realmUser,
  user_group: userGroup,
  user_status: userStatus,
  stream,
  subscription,
  update_message_flags: updateMessageFlags,
  typing_edit_message: typingEditMessage,
};

/** Every client event one published event becomes for this client (possibly none). */
export function presentEvent(e: PublishedEvent, ctx: PresentContext): ClientEvent[] {
  const shaped = (presenters[e.type] ?? ((ev, c) => one(base(ev, c))))(e, ctx);
  const display = ctx.view.capabilities.empty_topic_name ? null : ctx.realm.realm.settings.empty_topic_display_name;
  return shaped.map((ev) => {
    const clean = publicFields(ev) as ClientEvent;
    return display === null ? clean : withDisplayTopics(clean, display);
  });
}
