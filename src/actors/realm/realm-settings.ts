// Realm commands that change the organization itself: its settings (PATCH /realm, scalar and
// group-valued), the defaults of new accounts' personal settings, and its allowed email
// domains. Run inside the realm actor; the cached realm record is replaced before the events
// are released.
import { errors } from '../../domain/errors.js';
import { realmDomainsEvent, realmEvent, realmUserSettingsDefaultsEvent } from '../../domain/events/realm.js';
import { renderPlainDescription } from '../../domain/descriptions.js';
import { checkDomain } from '../../domain/realm-domains.js';
import {
  CHANNEL_SETTINGS,
  OWNER_ONLY_SETTINGS,
  REALM_GROUP_SETTING_RULES,
  type RealmSettings,
} from '../../domain/realm-settings.js';
import { isOwner } from '../../domain/roles.js';
import type { UserSettingName, UserSettingValue } from '../../domain/user-settings.js';
import * as domains from '../../store/realm-domains.js';
import { channelExists, updateRealm } from '../../store/realms.js';
import type { RealmContext } from './actor.js';
import { applyFullMembersChange, fullMembersChange, writeFullMembersChange } from './full-members.js';
import type { RealmState } from './state.js';
import {
  applyStoredGroupSettings,
  checkGroupSetting,
  sameGroupSetting,
  storeGroupSetting,
  type GroupSettingInput,
  type StoredGroupSetting,
} from './group-settings.js';

export type ScalarRealmSettings = Omit<RealmSettings, 'groups' | 'user_settings_defaults'>;

export interface GroupSettingChange {
  readonly new: GroupSettingInput;
  /** When given, the change applies only if the setting still has this value. */
  readonly old?: GroupSettingInput | undefined;
}

export interface UpdateRealmInput {
  readonly actorId: number;
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly settings: Partial<ScalarRealmSettings>;
  readonly groups: Readonly<Record<string, GroupSettingChange>>;
}

const all = { userIds: null };

/** PATCH /realm. Returns the values that changed, by property. */
async function updateRealmSettings(ctx: RealmContext, input: UpdateRealmInput): Promise<Record<string, unknown>> {
  const { state } = ctx;
  const actor = state.user(input.actorId);
  if (!actor) throw errors.noSuchUser();
  const r = state.realm;
  if (!isOwner(actor.role) && [...Object.keys(input.settings), ...Object.keys(input.groups)].some((k) => OWNER_ONLY_SETTINGS.has(k))) {
    throw errors.mustBeOwner();
  }
  const scalars = Object.entries(input.settings).filter(([k, v]) => (r.settings as Record<string, unknown>)[k] !== v) as Array<
    [keyof ScalarRealmSettings, unknown]
  >;
  const groupChanges: Array<[string, GroupSettingInput]> = [];
  for (const [name, change] of Object.entries(input.groups)) {
    const current = r.settings.groups[name];
    if (current === undefined) throw errors.badRequest(`Invalid ${name}`);
    if (change.old !== undefined && !sameGroupSetting(state, current, change.old)) {
      throw errors.badRequest("'old' value does not match the expected value.");
    }
    checkGroupSetting(state, change.new, { name, ...REALM_GROUP_SETTING_RULES[name] });
    if (!sameGroupSetting(state, current, change.new)) groupChanges.push([name, change.new]);
  }
  const name = input.name === undefined || input.name === r.name ? undefined : input.name;
  const description = input.description === undefined || input.description === r.description ? undefined : input.description;
  if (scalars.length === 0 && groupChanges.length === 0 && name === undefined && description === undefined) return {};

  return ctx.write(
    async (tx, emit) => {
      for (const [k, v] of scalars) {
        if ((CHANNEL_SETTINGS as readonly string[]).includes(k) && v !== -1 && !(await channelExists(tx, state.id, v as number))) {
          throw errors.invalidChannelId();
        }
      }
      const stored: StoredGroupSetting[] = [];
      const groups = { ...r.settings.groups };
      const groupData: Record<string, ReturnType<RealmState['groupSettingValue']>> = {};
      for (const [k, v] of groupChanges) {
        const s = await storeGroupSetting(tx, state, v, ctx.services.clock.now());
        stored.push(s);
        groups[k] = s.groupId;
        groupData[k] = apiGroupSettingValue(state, s);
      }
      const settings: RealmSettings = { ...r.settings, ...Object.fromEntries(scalars), groups };
      await updateRealm(tx, state.id, { name, description, settings });
      // A new waiting period moves accounts into or out of role:fullmembers at once.
      const fullMembers =
        settings.waiting_period_threshold !== r.settings.waiting_period_threshold
          ? fullMembersChange(state, settings.waiting_period_threshold, ctx.services.clock.now())
          : null;
      if (fullMembers) await writeFullMembersChange(tx, emit, state, fullMembers);
      const changed: Record<string, unknown> = {};
      if (name !== undefined) {
        emit(realmEvent.build({ op: 'update', property: 'name', value: name }, all));
        changed.name = name;
      }
      if (description !== undefined) {
        // register's realm_description is the rendered text; the event carries the same.
        emit(realmEvent.build({ op: 'update', property: 'description', value: renderPlainDescription(description) }, all));
        changed.description = description;
      }
      for (const [k, v] of scalars) {
        emit(realmEvent.build({ op: 'update', property: k, value: v as string | number | boolean | null }, all));
        changed[k] = v;
      }
      if (groupChanges.length > 0) {
        emit(realmEvent.build({ op: 'update_dict', property: 'default', data: groupData }, all));
        Object.assign(changed, groupData);
      }
      return { settings, stored, changed, fullMembers };
    },
    ({ settings, stored, fullMembers }) => {
      applyStoredGroupSettings(state, stored);
      state.realm = { ...state.realm, settings, name: name ?? state.realm.name, description: description ?? state.realm.description };
      if (fullMembers) {
        applyFullMembersChange(state, fullMembers);
        ctx.realm.fullMembers.rearm();
      }
    },
  ).then((x) => x.changed);
}

/** A stored value in its API form (an anonymous group as its members and subgroups). */
function apiGroupSettingValue(state: RealmState, s: StoredGroupSetting): ReturnType<RealmState['groupSettingValue']> {
  if (!s.created) return s.groupId;
  return {
    direct_members: [...s.created.members].filter((id) => state.user(id)?.is_active).sort((a, b) => a - b),
    direct_subgroups: [...s.created.subgroups].sort((a, b) => a - b),
  };
}

export interface UserDefaultsInput {
  readonly settings: ReadonlyArray<readonly [UserSettingName, UserSettingValue]>;
}

/** PATCH /realm/user_settings_defaults: what new accounts start with. */
async function updateUserDefaults(ctx: RealmContext, input: UserDefaultsInput): Promise<void> {
  const { state } = ctx;
  const r = state.realm;
  const current = r.settings.user_settings_defaults;
  const changes = input.settings.filter(([k, v]) => current[k] !== v);
  if (changes.length === 0) return;
  const settings: RealmSettings = { ...r.settings, user_settings_defaults: { ...current, ...Object.fromEntries(changes) } };
  await ctx.write(
    async (tx, emit) => {
      await updateRealm(tx, state.id, { settings });
      for (const [property, value] of changes) emit(realmUserSettingsDefaultsEvent.build({ op: 'update', property, value }, all));
    },
    () => {
      state.realm = { ...state.realm, settings };
    },
  );
}

async function addDomain(ctx: RealmContext, input: { readonly domain: string; readonly allowSubdomains: boolean }): Promise<domains.DomainRow> {
  const domain = checkDomain(input.domain);
  return ctx.write(async (tx, emit) => {
    if ((await domains.listDomains(tx, ctx.state.id)).some((d) => d.domain === domain)) {
      throw errors.badRequest(`The domain ${domain} is already a part of your organization.`);
    }
    const row = await domains.insertDomain(tx, ctx.state.id, domain, input.allowSubdomains);
    emit(realmDomainsEvent.build({ op: 'add', realm_domain: { domain, allow_subdomains: row.allow_subdomains } }, all));
    return row;
  });
}

const noSuchDomain = (domain: string) => errors.badRequest(`No entry found for domain: ${domain}.`);

async function changeDomain(ctx: RealmContext, input: { readonly domain: string; readonly allowSubdomains: boolean }): Promise<void> {
  const domain = input.domain.trim().toLowerCase();
  await ctx.write(async (tx, emit) => {
    if (!(await domains.setAllowSubdomains(tx, ctx.state.id, domain, input.allowSubdomains))) throw noSuchDomain(input.domain);
    emit(realmDomainsEvent.build({ op: 'change', realm_domain: { domain, allow_subdomains: input.allowSubdomains } }, all));
  });
}

/** Removing the last domain also lifts the restriction to domains (nobody could join otherwise). */
async function removeDomain(ctx: RealmContext, input: { readonly domain: string }): Promise<void> {
  const { state } = ctx;
  const domain = input.domain.trim().toLowerCase();
  await ctx.write(
    async (tx, emit) => {
      if (!(await domains.deleteDomain(tx, state.id, domain))) throw noSuchDomain(input.domain);
      emit(realmDomainsEvent.build({ op: 'remove', domain }, all));
      const lift = state.realm.settings.emails_restricted_to_domains && (await domains.listDomains(tx, state.id)).length === 0;
      if (lift) {
        await updateRealm(tx, state.id, { settings: { ...state.realm.settings, emails_restricted_to_domains: false } });
        emit(realmEvent.build({ op: 'update', property: 'emails_restricted_to_domains', value: false }, all));
      }
      return lift;
    },
    (lift) => {
      if (lift) state.realm = { ...state.realm, settings: { ...state.realm.settings, emails_restricted_to_domains: false } };
    },
  );
}

export const realmSettingsCommands = {
  'realm.update': updateRealmSettings,
  'realm.updateUserDefaults': updateUserDefaults,
  'realmDomain.add': addDomain,
  'realmDomain.change': changeDomain,
  'realmDomain.remove': removeDomain,
};
