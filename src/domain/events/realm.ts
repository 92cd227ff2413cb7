// Events about the organization: `realm` (a setting changed: op update for one scalar,
// update_dict for group-valued settings), `realm_domains` and `realm_user_settings_defaults`.
import { z } from 'zod';
import { defineEvent } from './define.js';

const scalar = z.union([z.boolean(), z.number(), z.string(), z.null()]);
const groupSettingValue = z.union([
  z.number().int(),
  z.object({ direct_members: z.array(z.number().int()), direct_subgroups: z.array(z.number().int()) }),
]);

export const realmEvent = defineEvent(
  'realm',
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('update'), property: z.string(), value: scalar }),
    z.object({ op: z.literal('update_dict'), property: z.literal('default'), data: z.record(z.string(), groupSettingValue) }),
  ]),
);

const realmDomain = z.object({ domain: z.string(), allow_subdomains: z.boolean() });

export const realmDomainsEvent = defineEvent(
  'realm_domains',
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('add'), realm_domain: realmDomain }),
    z.object({ op: z.literal('change'), realm_domain: realmDomain }),
    z.object({ op: z.literal('remove'), domain: z.string() }),
  ]),
);

export const realmUserSettingsDefaultsEvent = defineEvent(
  'realm_user_settings_defaults',
  z.object({ op: z.literal('update'), property: z.string(), value: z.union([z.boolean(), z.number(), z.string()]) }),
);
