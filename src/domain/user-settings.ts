// Personal settings (the `user_settings` object of the API): one table of every setting with its
// kind and the default of a new account. The stored form (users.settings, jsonb) is validated by
// the zod schema derived from it; absent keys take their default, so adding a setting needs no
// migration. PATCH /settings and PATCH /realm/user_settings_defaults take their parameters from
// the same table.
import { z } from 'zod';

/** email_address_visibility values. */
export const EmailVisibility = {
  everyone: 1,
  members: 2,
  admins: 3,
  nobody: 4,
  moderators: 5,
} as const;

export type SettingKind =
  | { readonly kind: 'bool'; readonly default: boolean }
  | { readonly kind: 'int'; readonly values: readonly number[]; readonly default: number }
  | { readonly kind: 'range'; readonly min: number; readonly max: number; readonly default: number }
  | { readonly kind: 'enum'; readonly values: readonly string[]; readonly default: string }
  | { readonly kind: 'string'; readonly max: number; readonly default: string };

const bool = (d: boolean) => ({ kind: 'bool', default: d }) as const;
const ints = (values: readonly number[], d: number) => ({ kind: 'int', values, default: d }) as const;
const range = (min: number, max: number, d: number) => ({ kind: 'range', min, max, default: d }) as const;
const oneOf = (values: readonly string[], d: string) => ({ kind: 'enum', values, default: d }) as const;

export const EMOJISETS = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
] as const;

export const NOTIFICATION_SOUNDS = ['chime-saved', 'ding', 'zulip'] as const;

/** Language codes accepted for default_language (the UI's translations are the client's). */
export const LANGUAGES: Readonly<Record<string, string>> = {
  ar: 'العربية',
  de: 'Deutsch',
  en: 'English',
  es: 'Español',
  fr: 'Français',
  hi: 'हिन्दी',
  it: 'Italiano',
  ja: '日本語',
  ko: '한국어',
  nl: 'Nederlands',
  pl: 'Polski',
  pt: 'Português',
  'pt-br': 'Português (Brasil)',
  ru: 'Русский',
  sv: 'Svenska',
  tr: 'Türkçe',
  uk: 'Українська',
  'zh-hans': '简体中文',
  'zh-hant': '繁體中文',
};

/** Every personal setting but the time zone (kept with the account, see below). */
export const USER_SETTINGS = {
  // Display
  twenty_four_hour_time: bool(false),
  web_mark_read_on_scroll_policy: ints([1, 2, 3], 1),
  web_channel_default_view: ints([1, 2, 3, 4], 1),
  starred_message_counts: bool(true),
  receives_typing_notifications: bool(true),
  web_suggest_update_timezone: bool(true),
  fluid_layout_width: bool(false),
  high_contrast_mode: bool(false),
  web_font_size_px: range(12, 24, 16),
  web_line_height_percent: range(122, 158, 140),
  color_scheme: ints([1, 2, 3], 1),
  enable_drafts_synchronization: bool(true),
  translate_emoticons: bool(false),
  display_emoji_reaction_users: bool(true),
  default_language: oneOf(Object.keys(LANGUAGES), 'en'),
  web_home_view: oneOf(['recent_topics', 'inbox', 'all_messages'], 'inbox'),
  web_escape_navigates_to_home_view: bool(true),
  left_side_userlist: bool(false),
  emojiset: oneOf(EMOJISETS.map((e) => e.key), 'google'),
  demote_inactive_streams: ints([1, 2, 3], 1),
  user_list_style: ints([1, 2, 3], 2),
  web_animate_image_previews: oneOf(['always', 'on_hover', 'never'], 'on_hover'),
  web_stream_unreads_count_display_policy: ints([1, 2, 3], 2),
  hide_ai_features: bool(false),
  web_inbox_show_channel_folders: bool(true),
  web_left_sidebar_show_channel_folders: bool(true),
  web_left_sidebar_unreads_count_summary: bool(true),
  web_navigate_to_sent_message: bool(true),
  enter_sends: bool(false),
  // Notifications
  enable_stream_desktop_notifications: bool(false),
  enable_stream_email_notifications: bool(false),
  enable_stream_push_notifications: bool(false),
  enable_stream_audible_notifications: bool(false),
  notification_sound: oneOf([...NOTIFICATION_SOUNDS, 'none'], 'zulip'),
  enable_desktop_notifications: bool(true),
  enable_sounds: bool(true),
  email_notifications_batching_period_seconds: range(60, 7 * 86_400, 120),
  enable_offline_email_notifications: bool(true),
  enable_offline_push_notifications: bool(true),
  enable_online_push_notifications: bool(true),
  enable_followed_topic_desktop_notifications: bool(true),
  enable_followed_topic_email_notifications: bool(true),
  enable_followed_topic_push_notifications: bool(true),
  enable_followed_topic_audible_notifications: bool(true),
  enable_digest_emails: bool(true),
  enable_marketing_emails: bool(true),
  enable_login_emails: bool(true),
  message_content_in_email_notifications: bool(true),
  pm_content_in_desktop_notifications: bool(true),
  wildcard_mentions_notify: bool(true),
  enable_followed_topic_wildcard_mentions_notify: bool(true),
  desktop_icon_count_display: ints([1, 2, 3, 4], 1),
  realm_name_in_email_notifications_policy: ints([1, 2, 3], 1),
  automatically_follow_topics_policy: ints([1, 2, 3, 4], 3),
  automatically_unmute_topics_in_muted_streams_policy: ints([1, 2, 3, 4], 4),
  automatically_follow_topics_where_mentioned: bool(true),
  resolved_topic_notice_auto_read_policy: oneOf(['always', 'except_followed', 'never'], 'except_followed'),
  // Privacy
  presence_enabled: bool(true),
  send_private_typing_notifications: bool(true),
  send_stream_typing_notifications: bool(true),
  send_read_receipts: bool(true),
  allow_private_data_export: bool(false),
  email_address_visibility: ints([1, 2, 3, 4, 5], EmailVisibility.everyone),
} as const satisfies Record<string, SettingKind>;

export type UserSettingName = keyof typeof USER_SETTINGS;
export const USER_SETTING_NAMES = Object.keys(USER_SETTINGS) as UserSettingName[];

/** A zod schema for one stored setting value (with its default). */
function storedSchema(k: SettingKind) {
  switch (k.kind) {
    case 'bool':
      return z.boolean().default(k.default);
    case 'int':
    case 'range':
      return z.number().int().default(k.default);
    case 'enum':
    case 'string':
      return z.string().default(k.default);
  }
}

const settingShape = Object.fromEntries(USER_SETTING_NAMES.map((n) => [n, storedSchema(USER_SETTINGS[n])])) as {
  [K in UserSettingName]: (typeof USER_SETTINGS)[K]['kind'] extends 'bool'
    ? z.ZodDefault<z.ZodBoolean>
    : (typeof USER_SETTINGS)[K]['kind'] extends 'int' | 'range'
      ? z.ZodDefault<z.ZodNumber>
      : z.ZodDefault<z.ZodString>;
};

export const userSettingsSchema = z.object({
  ...settingShape,
  /** Also on the account row (users.timezone), which user objects read. */
  timezone: z.string().default(''),
});
export type UserSettings = z.infer<typeof userSettingsSchema>;
export type UserSettingValue = boolean | number | string;

/** Whether a stored value has the type the schema requires (z.boolean / z.number().int() / z.string). */
function storedTypeFits(k: SettingKind, v: unknown): boolean {
  switch (k.kind) {
    case 'bool':
      return typeof v === 'boolean';
    case 'int':
    case 'range':
      return Number.isInteger(v);
    case 'enum':
    case 'string':
      return typeof v === 'string';
  }
}

/**
 * Every setting at its default, as the schema gives them: what an account that set nothing has.
 * Not frozen: V8 copies a frozen object property by property, this one in one step (several times
 * faster).
 */
const DEFAULT_SETTINGS: Readonly<Record<string, unknown>> = userSettingsSchema.parse({});

/**
 * The settings of every account that stored none of its own (most of them): one frozen object,
 * not 64 properties per account. Settings are replaced, never changed in place
 * (actors/realm/user-profile.ts); a write to this one would throw.
 */
const UNSET_SETTINGS = Object.freeze({ ...DEFAULT_SETTINGS }) as UserSettings;

/**
 * The stored settings with their defaults filled in, as `userSettingsSchema.parse` gives them.
 * Every account's settings are read at start-up (10,000 accounts: 200 ms through zod), so the
 * common case is checked by hand: the keys an account stored over a copy of the defaults, or the
 * shared defaults when it stored none. Anything the check does not accept goes through zod, which
 * reports it; so do objects that are not plain, whose inherited keys zod would read.
 */
export function parseUserSettings(raw: unknown): UserSettings {
  const src = raw ?? {};
  if (typeof src !== 'object' || Object.getPrototypeOf(src) !== Object.prototype) return userSettingsSchema.parse(src);
  const stored = src as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const name of Object.keys(stored)) {
    const v = stored[name];
    if (v === undefined) continue;
    if (name === 'timezone') {
      if (typeof v !== 'string') return userSettingsSchema.parse(src);
    } else if (!Object.hasOwn(USER_SETTINGS, name)) {
      continue;
    } else if (!storedTypeFits(USER_SETTINGS[name as UserSettingName] as SettingKind, v)) {
      return userSettingsSchema.parse(src);
    }
    out ??= { ...DEFAULT_SETTINGS };
    out[name] = v;
  }
  return (out ?? UNSET_SETTINGS) as UserSettings;
}

/**
 * What users.settings stores: only the settings that differ from their default, which
 * parseUserSettings fills back in. Most accounts store `{}`, so start-up reads a few bytes per
 * account, not 2.4 KB of defaults. A setting chosen equal to its default is not kept apart from
 * one never set: both follow the default.
 */
export function storedUserSettings(settings: UserSettings): Record<string, UserSettingValue> {
  const out: Record<string, UserSettingValue> = {};
  if (settings === UNSET_SETTINGS) return out;
  for (const [name, v] of Object.entries(settings) as Array<[string, UserSettingValue]>) {
    if (v !== DEFAULT_SETTINGS[name]) out[name] = v;
  }
  return out;
}

/** Is this a value the setting accepts? (The parameter codec checked the type already.) */
export function isValidSettingValue(name: UserSettingName, value: UserSettingValue): boolean {
  const k = USER_SETTINGS[name] as SettingKind;
  switch (k.kind) {
    case 'bool':
      return typeof value === 'boolean';
    case 'int':
      return typeof value === 'number' && k.values.includes(value);
    case 'range':
      return typeof value === 'number' && value >= k.min && value <= k.max;
    case 'enum':
      return typeof value === 'string' && k.values.includes(value);
    case 'string':
      return typeof value === 'string' && value.length <= k.max;
  }
}

/** IANA time zone names this runtime knows, plus '' (no time zone set). */
export function isValidTimezone(tz: string): boolean {
  if (tz === '') return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
