// The organization: PATCH /realm (settings, including group-valued ones given as a value or as
// {new, old}), PATCH /realm/user_settings_defaults, and its allowed email domains (endpoint 19).
import { z, type ZodTypeAny } from 'zod';
import { REALM_GROUP_SETTING_DEFAULTS } from '../../domain/realm-settings.js';
import { LANGUAGES, USER_SETTING_NAMES, type UserSettingName, type UserSettingValue } from '../../domain/user-settings.js';
import { listDomains } from '../../store/realm-domains.js';
import type { ScalarRealmSettings } from '../../actors/realm/realm-settings.js';
import { userEndpoint } from '../endpoint.js';
import { requireAdmin, requireOwner } from '../guards.js';
import { j, p } from '../params.js';
import { sendWelcomeMessage } from '../../actors/conversations/welcome.js';
import { errors } from '../../domain/errors.js';
import { settingParams } from './settings.js';

/** Welcome Bot's custom text, at most. */
const MAX_WELCOME_TEXT_LENGTH = 8000;

/** A positive number of seconds (or days), or "unlimited" (stored as `unlimited`). */
function limit<U extends null | -1>(unlimited: U) {
  return p.string().transform((raw, ctx): number | U => {
    const t = raw.trim();
    if (t === 'unlimited' || t === '"unlimited"') return unlimited;
    if (/^\d{1,10}$/.test(t) && Number(t) > 0) return Number(t);
    ctx.addIssue({ code: 'custom', message: `Bad value for '{var}': ${raw}` });
    return z.NEVER;
  });
}

const oneOf = <T extends string>(values: readonly T[]) => p.string().refine((v): v is T => (values as readonly string[]).includes(v), { message: 'Invalid {var}' });
const intIn = (values: readonly number[]) => p.int().refine((v) => values.includes(v), { message: 'Invalid {var}' });

const BOOLEAN_SETTINGS = [
  'allow_message_editing',
  'allow_edit_history',
  'enable_spectator_access',
  'invite_required',
  'emails_restricted_to_domains',
  'disallow_disposable_email_addresses',
  'presence_disabled',
  'inline_image_preview',
  'inline_url_embed_preview',
  'digest_emails_enabled',
  'send_welcome_emails',
  'send_channel_events_messages',
  'email_changes_disabled',
  'name_changes_disabled',
  'avatar_changes_disabled',
  'require_unique_names',
  'enable_read_receipts',
  'enable_guest_user_indicator',
  'enable_guest_user_dm_warning',
  'require_e2ee_push_notifications',
  'message_content_allowed_in_email_notifications',
  'want_advertise_in_communities_directory',
] as const;

/** Every scalar organization setting PATCH /realm takes, with its codec. */
const scalarParams: { [K in keyof ScalarRealmSettings]?: ZodTypeAny } = {
  ...Object.fromEntries(BOOLEAN_SETTINGS.map((k) => [k, p.bool()])),
  message_edit_history_visibility_policy: oneOf(['all', 'moves', 'none'] as const),
  message_content_edit_limit_seconds: limit(null),
  message_content_delete_limit_seconds: limit(null),
  move_messages_within_stream_limit_seconds: limit(null),
  move_messages_between_streams_limit_seconds: limit(null),
  message_retention_days: limit(-1),
  topics_policy: oneOf(['allow_empty_topic', 'disable_empty_topic'] as const),
  empty_topic_display_name: p.string({ trim: true, min: 1, max: 60 }),
  waiting_period_threshold: p.int({ min: 0, max: 1_000_000 }),
  default_language: oneOf(Object.keys(LANGUAGES)),
  welcome_message_custom_text: p.string({ max: MAX_WELCOME_TEXT_LENGTH }),
  digest_weekday: p.int({ min: 0, max: 6 }),
  gif_rating_policy: intIn([0, 1, 2, 3]),
  default_code_block_language: p.string({ max: 100 }),
  org_type: intIn([0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100]),
  new_stream_announcements_stream_id: p.int({ min: -1 }),
  signup_announcements_stream_id: p.int({ min: -1 }),
  service_update_announcements_stream_id: p.int({ min: -1 }),
  moderation_request_channel_id: p.int({ min: -1 }),
};

/** A group-setting value, or {new, old} where `old` guards against concurrent changes. */
const groupChange = () =>
  p.json(z.union([j.groupSetting, z.object({ new: j.groupSetting, old: j.groupSetting.optional() }).strict()])).transform((v) =>
    typeof v === 'object' && 'new' in v ? v : { new: v },
  );

const groupParams = Object.fromEntries(Object.keys(REALM_GROUP_SETTING_DEFAULTS).map((k) => [k, groupChange().optional()]));

const realmParams = z.object({
  name: p.string({ trim: true, min: 1, max: 40 }).optional(),
  description: p.string({ max: 1000 }).optional(),
  ...Object.fromEntries(Object.entries(scalarParams).map(([k, codec]) => [k, codec!.optional()])),
  ...groupParams,
});

export const updateRealm = userEndpoint(realmParams, async (ctx, params) => {
  requireAdmin(ctx.user);
  const values = params as Record<string, unknown>;
  const settings = Object.fromEntries(Object.keys(scalarParams).filter((k) => values[k] !== undefined).map((k) => [k, values[k]]));
  const groups = Object.fromEntries(Object.keys(groupParams).filter((k) => values[k] !== undefined).map((k) => [k, values[k]]));
  const changed = await ctx.realm.ask('realm.update', {
    actorId: ctx.user.id,
    name: params.name as string | undefined,
    description: params.description as string | undefined,
    settings,
    groups: groups as never,
  });
  return changed;
});

export const updateUserSettingsDefaults = userEndpoint(z.object(settingParams), async (ctx, params) => {
  requireAdmin(ctx.user);
  const values = params as Record<string, UserSettingValue | undefined>;
  const settings = USER_SETTING_NAMES.filter((n) => values[n] !== undefined).map((n) => [n, values[n]!] as [UserSettingName, UserSettingValue]);
  await ctx.realm.ask('realm.updateUserDefaults', { settings });
  return {};
});

export const getRealmDomains = userEndpoint(z.object({}), async (ctx) => {
  const rows = await listDomains(ctx.app.db, ctx.realm.id);
  return { domains: rows.map((d) => ({ domain: d.domain, allow_subdomains: d.allow_subdomains })) };
});

export const addRealmDomain = userEndpoint(
  z.object({ domain: p.string(), allow_subdomains: p.bool() }),
  async (ctx, params) => {
    requireOwner(ctx.user);
    const row = await ctx.realm.ask('realmDomain.add', { domain: params.domain, allowSubdomains: params.allow_subdomains });
    return { new_domain: [row.id, row.domain] };
  },
);

export const updateRealmDomain = userEndpoint(
  z.object({ domain: p.string(), allow_subdomains: p.bool() }),
  async (ctx, params) => {
    requireOwner(ctx.user);
    await ctx.realm.ask('realmDomain.change', { domain: params.domain, allowSubdomains: params.allow_subdomains });
    return {};
  },
);

export const removeRealmDomain = userEndpoint(z.object({ domain: p.string() }), async (ctx, params) => {
  requireOwner(ctx.user);
  await ctx.realm.ask('realmDomain.remove', { domain: params.domain });
  return {};
});

/**
 * POST /realm/test_welcome_bot_custom_message: Welcome Bot sends the text to the administrator
 * asking, as a new user would receive it (to try a welcome_message_custom_text before setting it).
 */
export const testWelcomeBotMessage = userEndpoint(
  z.object({ welcome_message_custom_text: p.string({ max: MAX_WELCOME_TEXT_LENGTH }) }),
  async (ctx, params) => {
    requireAdmin(ctx.user);
    const id = await sendWelcomeMessage(ctx.realm, ctx.user.id, params.welcome_message_custom_text);
    if (id === null) throw errors.messageEmpty();
    return { message_id: id };
  },
);
