// Organization settings: one zod schema with the defaults of a new organization. Stored in
// realms.settings (jsonb); an absent key takes its default, so adding a setting needs no
// migration. Group-valued settings (can_*_group) are user-group ids, stored separately in
// settings.groups and created from the role-group defaults below.
import { z } from 'zod';
import { SystemGroup, type SystemGroupName } from './system-groups.js';

const nullableSeconds = z.number().int().min(0).nullable();

export const realmSettingsSchema = z.object({
  allow_message_editing: z.boolean().default(true),
  allow_edit_history: z.boolean().default(true),
  message_edit_history_visibility_policy: z.enum(['all', 'moves', 'none']).default('all'),
  message_content_edit_limit_seconds: nullableSeconds.default(600),
  message_content_delete_limit_seconds: nullableSeconds.default(null),
  move_messages_within_stream_limit_seconds: nullableSeconds.default(604800),
  move_messages_between_streams_limit_seconds: nullableSeconds.default(604800),
  topics_policy: z.enum(['allow_empty_topic', 'disable_empty_topic']).default('allow_empty_topic'),
  empty_topic_display_name: z.string().min(1).max(60).default('general chat'),
  waiting_period_threshold: z.number().int().min(0).default(0),
  message_retention_days: z.number().int().default(-1),
  enable_spectator_access: z.boolean().default(false),
  invite_required: z.boolean().default(true),
  emails_restricted_to_domains: z.boolean().default(false),
  disallow_disposable_email_addresses: z.boolean().default(true),
  presence_disabled: z.boolean().default(false),
  default_language: z.string().default('en'),
  welcome_message_custom_text: z.string().default(''),
  inline_image_preview: z.boolean().default(true),
  inline_url_embed_preview: z.boolean().default(false),
  digest_emails_enabled: z.boolean().default(false),
  digest_weekday: z.number().int().min(0).max(6).default(1),
  send_welcome_emails: z.boolean().default(true),
  send_channel_events_messages: z.boolean().default(true),
  email_changes_disabled: z.boolean().default(false),
  name_changes_disabled: z.boolean().default(false),
  avatar_changes_disabled: z.boolean().default(false),
  require_unique_names: z.boolean().default(false),
  enable_read_receipts: z.boolean().default(false),
  enable_guest_user_indicator: z.boolean().default(true),
  enable_guest_user_dm_warning: z.boolean().default(true),
  require_e2ee_push_notifications: z.boolean().default(false),
  message_content_allowed_in_email_notifications: z.boolean().default(true),
  want_advertise_in_communities_directory: z.boolean().default(false),
  video_chat_provider: z.number().int().default(0),
  jitsi_server_url: z.string().nullable().default(null),
  gif_rating_policy: z.number().int().default(2),
  default_code_block_language: z.string().default(''),
  org_type: z.number().int().default(0),
  new_stream_announcements_stream_id: z.number().int().default(-1),
  signup_announcements_stream_id: z.number().int().default(-1),
  service_update_announcements_stream_id: z.number().int().default(-1),
  moderation_request_channel_id: z.number().int().default(-1),
  name_in_email_notifications_policy: z.number().int().default(1),
  /** Defaults of personal settings for new accounts (PATCH /realm/user_settings_defaults); absent keys take the personal default. */
  user_settings_defaults: z.record(z.string(), z.union([z.boolean(), z.number(), z.string()])).default({}),
  /** Group-valued settings: setting name → user group id. */
  groups: z.record(z.string(), z.number().int()).default({}),
});
export type RealmSettings = z.infer<typeof realmSettingsSchema>;

export const parseRealmSettings = (raw: unknown): RealmSettings => realmSettingsSchema.parse(raw ?? {});

/** Group-valued organization settings and the role group a new organization starts with. */
export const REALM_GROUP_SETTING_DEFAULTS: Readonly<Record<string, SystemGroupName>> = {
  can_access_all_users_group: SystemGroup.everyone,
  can_add_custom_emoji_group: SystemGroup.members,
  can_add_subscribers_group: SystemGroup.members,
  can_create_bots_group: SystemGroup.members,
  can_create_groups: SystemGroup.members,
  can_create_private_channel_group: SystemGroup.members,
  can_create_public_channel_group: SystemGroup.members,
  can_create_web_public_channel_group: SystemGroup.owners,
  can_create_write_only_bots_group: SystemGroup.members,
  can_delete_any_message_group: SystemGroup.administrators,
  can_delete_own_message_group: SystemGroup.everyone,
  can_invite_users_group: SystemGroup.members,
  can_manage_all_groups: SystemGroup.owners,
  can_manage_billing_group: SystemGroup.administrators,
  can_mention_many_users_group: SystemGroup.administrators,
  can_move_messages_between_channels_group: SystemGroup.members,
  can_move_messages_between_topics_group: SystemGroup.everyone,
  can_resolve_topics_group: SystemGroup.everyone,
  can_set_delete_message_policy_group: SystemGroup.moderators,
  can_set_topics_policy_group: SystemGroup.moderators,
  can_summarize_topics_group: SystemGroup.everyone,
  create_multiuse_invite_group: SystemGroup.administrators,
  direct_message_initiator_group: SystemGroup.everyone,
  direct_message_permission_group: SystemGroup.everyone,
};

/** The settings PATCH /realm changes that only organization owners may change. */
export const OWNER_ONLY_SETTINGS: ReadonlySet<string> = new Set([
  'invite_required',
  'emails_restricted_to_domains',
  'disallow_disposable_email_addresses',
  'waiting_period_threshold',
  'message_retention_days',
  'can_invite_users_group',
  'create_multiuse_invite_group',
  'can_create_web_public_channel_group',
]);

/** What each group-valued organization setting may be set to, beyond "not role:internet". */
export const REALM_GROUP_SETTING_RULES: Readonly<Record<string, { forbidden?: readonly SystemGroupName[]; systemGroupsOnly?: boolean }>> = {
  // Only guests can be restricted: everyone or members.
  can_access_all_users_group: {
    systemGroupsOnly: true,
    forbidden: [
      SystemGroup.internet,
      SystemGroup.owners,
      SystemGroup.administrators,
      SystemGroup.moderators,
      SystemGroup.fullMembers,
      SystemGroup.nobody,
    ],
  },
  can_create_web_public_channel_group: { systemGroupsOnly: true, forbidden: [SystemGroup.internet, SystemGroup.everyone] },
  // Guests never create groups, so role:everyone would promise what it does not give.
  can_create_groups: { forbidden: [SystemGroup.internet, SystemGroup.everyone] },
  can_invite_users_group: { forbidden: [SystemGroup.internet, SystemGroup.everyone] },
  create_multiuse_invite_group: { forbidden: [SystemGroup.internet, SystemGroup.everyone] },
  can_manage_all_groups: { forbidden: [SystemGroup.internet, SystemGroup.everyone] },
  can_manage_billing_group: { forbidden: [SystemGroup.internet, SystemGroup.everyone] },
  can_create_bots_group: { forbidden: [SystemGroup.internet, SystemGroup.everyone] },
  can_create_write_only_bots_group: { forbidden: [SystemGroup.internet, SystemGroup.everyone] },
};

/** Channel-valued settings: a channel id, or -1 for none. */
export const CHANNEL_SETTINGS = [
  'new_stream_announcements_stream_id',
  'signup_announcements_stream_id',
  'service_update_announcements_stream_id',
  'moderation_request_channel_id',
] as const;
