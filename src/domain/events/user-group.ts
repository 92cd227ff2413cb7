// `user_group` events. Canonical payloads (present.ts shapes them per client): deactivation is
// `update` with data.deactivated=true; reactivation is data.deactivated=false plus `_group` (the
// whole group, for clients that saw it removed); other events about a deactivated group carry
// `_group_deactivated: true` so clients without include_deactivated_groups never see them.
import { z } from 'zod';
import { defineEvent } from './define.js';

const settingValue = z.union([
  z.number().int(),
  z.object({ direct_members: z.array(z.number().int()), direct_subgroups: z.array(z.number().int()) }),
]);

/** The group's permission settings, as the group object and update events carry them. */
const settings = {
  can_add_members_group: settingValue,
  can_join_group: settingValue,
  can_leave_group: settingValue,
  can_manage_group: settingValue,
  can_mention_group: settingValue,
  can_remove_members_group: settingValue,
};

export const userGroupObject = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  date_created: z.number().int().nullable(),
  creator_id: z.number().int().nullable(),
  members: z.array(z.number().int()),
  direct_subgroup_ids: z.array(z.number().int()),
  is_system_group: z.boolean(),
  deactivated: z.boolean(),
  ...settings,
});

const marked = { _group_deactivated: z.literal(true).optional() };

const users = z.object({ group_id: z.number().int(), user_ids: z.array(z.number().int()).min(1), ...marked });
const subgroups = z.object({ group_id: z.number().int(), direct_subgroup_ids: z.array(z.number().int()).min(1), ...marked });

export const userGroupEvent = defineEvent(
  'user_group',
  z.union([
    z.object({ op: z.literal('add'), group: userGroupObject }).strict(),
    z
      .object({
        op: z.literal('update'),
        group_id: z.number().int(),
        data: z
          .object({ name: z.string(), description: z.string(), deactivated: z.boolean(), ...settings })
          .partial()
          .strict(),
        _group: userGroupObject.optional(),
        ...marked,
      })
      .strict(),
    users.extend({ op: z.literal('add_members') }).strict(),
    users.extend({ op: z.literal('remove_members') }).strict(),
    subgroups.extend({ op: z.literal('add_subgroups') }).strict(),
    subgroups.extend({ op: z.literal('remove_subgroups') }).strict(),
  ]),
);
