// The client_capabilities of POST /register: each key keeps an older behaviour for clients that
// do not declare it (Versioning 4).
import { z } from 'zod';

export const CAPABILITY_KEYS = [
  'notification_settings_null',
  'bulk_message_deletion',
  'user_avatar_url_field_optional',
  'stream_typing_notifications',
  'user_settings_object',
  'linkifier_url_template',
  'user_list_incomplete',
  'include_deactivated_groups',
  'archived_channels',
  'empty_topic_name',
  'simplified_presence_events',
  'individual_emoji_changes',
] as const;
export type CapabilityKey = (typeof CAPABILITY_KEYS)[number];
export type Capabilities = Readonly<Record<CapabilityKey, boolean>>;

export const NO_CAPABILITIES: Capabilities = Object.freeze(
  Object.fromEntries(CAPABILITY_KEYS.map((k) => [k, false])) as Record<CapabilityKey, boolean>,
);

/** The JSON object clients send; unknown keys are ignored (newer clients, older server). */
export const capabilitiesSchema = z
  .record(z.string(), z.boolean({ invalid_type_error: '{at} is not a boolean' }))
  .transform((o): Capabilities => {
    const out = { ...NO_CAPABILITIES } as Record<CapabilityKey, boolean>;
    for (const k of CAPABILITY_KEYS) if (o[k] !== undefined) out[k] = o[k]!;
    return out;
  });
