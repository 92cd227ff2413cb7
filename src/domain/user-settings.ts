// Personal settings (the `user_settings` object of the API), one zod schema with the defaults
// of a new account; stored in users.settings (jsonb), absent keys take their default.
import { z } from 'zod';

/** email_address_visibility values. */
export const EmailVisibility = {
  everyone: 1,
  members: 2,
  admins: 3,
  nobody: 4,
  moderators: 5,
} as const;

export const userSettingsSchema = z.object({
  email_address_visibility: z.number().int().min(1).max(5).default(EmailVisibility.everyone),
  presence_enabled: z.boolean().default(true),
  send_private_typing_notifications: z.boolean().default(true),
  send_stream_typing_notifications: z.boolean().default(true),
  send_read_receipts: z.boolean().default(true),
  default_language: z.string().default('en'),
  enable_stream_desktop_notifications: z.boolean().default(false),
  enable_stream_email_notifications: z.boolean().default(false),
  enable_stream_push_notifications: z.boolean().default(false),
  enable_stream_audible_notifications: z.boolean().default(false),
  wildcard_mentions_notify: z.boolean().default(true),
  enable_desktop_notifications: z.boolean().default(true),
  enable_sounds: z.boolean().default(true),
  enable_offline_email_notifications: z.boolean().default(true),
  enable_offline_push_notifications: z.boolean().default(true),
  enable_online_push_notifications: z.boolean().default(true),
  pm_content_in_desktop_notifications: z.boolean().default(true),
  twenty_four_hour_time: z.boolean().default(false),
  starred_message_counts: z.boolean().default(true),
  fluid_layout_width: z.boolean().default(false),
  high_contrast_mode: z.boolean().default(false),
  color_scheme: z.number().int().default(1),
  emojiset: z.string().default('google'),
  demote_inactive_streams: z.number().int().default(1),
  web_home_view: z.string().default('inbox'),
  timezone: z.string().default(''),
});
export type UserSettings = z.infer<typeof userSettingsSchema>;

export const parseUserSettings = (raw: unknown): UserSettings => userSettingsSchema.parse(raw ?? {});
