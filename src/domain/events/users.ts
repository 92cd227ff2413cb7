// Events about accounts: realm_user (everyone who may access the user; the presenter hides
// what a viewer may not see), realm_bot (the bot's administrators) and user_settings (the user).
import { z } from 'zod';
import { defineEvent } from './define.js';

const id = z.number().int();

/** A whole user object as formatUser makes it for the user themselves (real delivery_email). */
const userObject = z.object({ user_id: id }).catchall(z.unknown());

/** The one-field changes of a user that realm_user update events carry. */
const personUpdate = z.union([
  z.object({ user_id: id, full_name: z.string() }).strict(),
  z.object({ user_id: id, role: id }).strict(),
  z.object({ user_id: id, is_active: z.boolean() }).strict(),
  z.object({ user_id: id, timezone: z.string(), email: z.string() }).strict(),
  z.object({ user_id: id, new_email: z.string() }).strict(),
  // The real address; the presenter turns it into null for viewers who may not see it.
  z.object({ user_id: id, delivery_email: z.string() }).strict(),
  z.object({ user_id: id, bot_owner_id: id }).strict(),
  z
    .object({
      user_id: id,
      avatar_source: z.string(),
      avatar_url: z.string().nullable(),
      avatar_url_medium: z.string().nullable(),
      avatar_version: id,
    })
    .strict(),
  z
    .object({
      user_id: id,
      custom_profile_field: z
        .object({ id, value: z.string().nullable(), rendered_value: z.string().optional() })
        .strict(),
    })
    .strict(),
]);

export const realmUserEvent = defineEvent(
  'realm_user',
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('add'), person: userObject }),
    z.object({ op: z.literal('update'), person: personUpdate }),
  ]),
);

/** The bot objects of register's realm_bots and of realm_bot events. */
export const botObject = z.object({
  user_id: id,
  email: z.string(),
  full_name: z.string(),
  bot_type: id,
  is_active: z.boolean(),
  api_key: z.string(),
  default_sending_stream: z.string().nullable(),
  default_events_register_stream: z.string().nullable(),
  default_all_public_streams: z.boolean(),
  avatar_url: z.string(),
  owner_id: id.nullable(),
  services: z.array(z.unknown()),
});

export const realmBotEvent = defineEvent(
  'realm_bot',
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('add'), bot: botObject }),
    z.object({
      op: z.literal('update'),
      bot: z.union([
        z.object({ user_id: id, full_name: z.string() }).strict(),
        z.object({ user_id: id, is_active: z.boolean() }).strict(),
        z.object({ user_id: id, owner_id: id }).strict(),
        z.object({ user_id: id, api_key: z.string() }).strict(),
        z.object({ user_id: id, avatar_url: z.string() }).strict(),
        z.object({ user_id: id, email: z.string() }).strict(),
      ]),
    }),
    z.object({ op: z.literal('delete'), bot: z.object({ user_id: id }).strict() }),
  ]),
);

export const userSettingsEvent = defineEvent(
  'user_settings',
  z.object({
    op: z.literal('update'),
    property: z.string(),
    value: z.union([z.boolean(), z.number(), z.string()]),
    language_name: z.string().optional(),
  }),
);
