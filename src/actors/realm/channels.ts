// Realm commands that create, change and archive channels, and manage default channels. Run
// inside the realm actor. Channel metadata is realm state: every change here updates the cached
// ChannelIndex (after its SQL, inside the write) and emits `stream` events to the users who may
// see the channel before or after.
//
// Why the cache is updated inside the write rather than after it: the events describe the state
// after the change (subscriber counts, group-setting values of new anonymous groups), and they
// are built from that state. Every check happens before the first statement, so nothing after
// the cache update can fail but the commit itself — and a failed commit is an unexpected error,
// after which the realm actor reloads its state from Postgres.
import type { CommonQueryMethods } from 'slonik';
import {
  CHANNEL_GROUP_DEFAULTS,
  CHANNEL_GROUP_SETTINGS,
  checkChannelDescription,
  checkChannelName,
  type ChannelGroupSetting,
  type TopicsPolicy,
} from '../../domain/channels.js';
import { errors } from '../../domain/errors.js';
import { defaultStreams, streamCreate, streamDelete, streamUpdate } from '../../domain/events/channels.js';
import { renderMarkdown } from '../../domain/markdown/index.js';
import { isAdmin, isOwner } from '../../domain/roles.js';
import { SystemGroup } from '../../domain/system-groups.js';
import * as store from '../../store/channels.js';
import type { Emit } from '../realm-events.js';
import type { RealmContext } from './actor.js';
import { toChannelRecord, type ChannelRecord } from './channel-index.js';
import {
  checkChannelGroupSetting,
  checkCreateTopicGroup,
  checkCreationPermission,
  checkRetentionDays,
  checkTopicsPolicyPermission,
  checkWebPublic,
  type ChannelKind,
} from './channel-rules.js';
import { canAdminister, canReadChannel, canSeeChannel, channelObject, metadataAudience, seeingAmong } from './channel-view.js';
import {
  applyStoredGroupSettings,
  sameGroupSetting,
  storeGroupSettings,
  type GroupSettingInput,
  type StoredGroupSetting,
} from './group-settings.js';
import { realmMarkdownContext, renderData, type RenderData } from './markdown-context.js';
import type { RealmState, UserRecord } from './state.js';

export interface NewChannelOptions {
  readonly kind: ChannelKind;
  readonly topicsPolicy: TopicsPolicy | undefined;
  readonly folderId: number | null;
  readonly groupSettings: Partial<Record<ChannelGroupSetting, GroupSettingInput>>;
}

export function actorOf(state: RealmState, actorId: number): UserRecord {
  const u = state.user(actorId);
  if (!u || !u.is_active) throw errors.userDeactivated();
  return u;
}

export function renderDescription(state: RealmState, data: RenderData, text: string): string {
  return text === '' ? '' : renderMarkdown(text, realmMarkdownContext(state, data, null)).html;
}

/** Everything checked before channels are created with these options. */
export function checkNewChannelOptions(state: RealmState, actor: UserRecord, o: NewChannelOptions): void {
  checkCreationPermission(state, actor, o.kind);
  checkTopicsPolicyPermission(state, actor, o.topicsPolicy);
  if (o.kind.messageRetentionDays !== undefined) checkRetentionDays(o.kind.messageRetentionDays);
  for (const [setting, value] of Object.entries(o.groupSettings) as Array<[ChannelGroupSetting, GroupSettingInput]>) {
    checkChannelGroupSetting(state, actor, setting, value);
  }
  const createTopic = o.groupSettings.can_create_topic_group ?? state.systemGroupId(SystemGroup.everyone);
  checkCreateTopicGroup(state, o.kind.historyPublic, createTopic);
}

/**
 * Insert channels (names checked and free) with their group settings; returns the records and
 * the anonymous groups made for them. Inside the caller's transaction; state is not touched.
 */
export async function insertChannels(
  ctx: RealmContext,
  tx: CommonQueryMethods,
  actor: UserRecord,
  specs: ReadonlyArray<{ name: string; description: string }>,
  o: NewChannelOptions,
  data: RenderData,
): Promise<{ created: ChannelRecord[]; groups: StoredGroupSetting[] }> {
  const { state } = ctx;
  // The foreign key alone would take another organization's folder.
  if (o.folderId !== null && !(await store.folderExists(tx, state.id, o.folderId))) throw errors.badRequest('Invalid channel folder ID');
  const now = ctx.services.clock.now();
  const created: ChannelRecord[] = [];
  const groups: StoredGroupSetting[] = [];
  for (const spec of specs) {
    const settings = {} as Record<ChannelGroupSetting, number>;
    const values = CHANNEL_GROUP_SETTINGS.map((s) => {
      const fallback = CHANNEL_GROUP_DEFAULTS[s];
      const value: GroupSettingInput =
        o.groupSettings[s] ??
        (fallback === 'creator' ? { direct_members: [actor.id], direct_subgroups: [] } : state.systemGroupId(fallback));
      return [s, value] as const;
    });
    groups.push(...(await storeGroupSettings(tx, state, values, settings, now)));
    const row = await store.insertChannel(tx, {
      realmId: state.id,
      name: spec.name,
      description: spec.description,
      renderedDescription: renderDescription(state, data, spec.description),
      creatorId: actor.id,
      inviteOnly: o.kind.inviteOnly,
      isWebPublic: o.kind.isWebPublic,
      historyPublicToSubscribers: o.kind.historyPublic,
      messageRetentionDays: o.kind.messageRetentionDays ?? null,
      topicsPolicy: o.topicsPolicy ?? 'inherit',
      folderId: o.folderId,
      settings,
      nowMs: now,
    });
    if (o.kind.isDefault) await store.addDefaultChannel(tx, state.id, row.id);
    created.push(toChannelRecord(row, (n) => state.systemGroupId(n)));
  }
  return { created, groups };
}

/**
 * Send stream create/delete to users who gained or lost sight of a channel. `before` is who saw
 * it: everyone who did, or, with `among`, those of `among` who did, when only their sight can have
 * changed (a subscription changes its subscribers' own, no one else's).
 */
export function emitVisibilityChange(state: RealmState, emit: Emit, c: ChannelRecord, before: ReadonlySet<number>, among?: Iterable<number>): void {
  const after = among === undefined ? new Set(metadataAudience(state, c)) : seeingAmong(state, c, among);
  const gained = [...after].filter((u) => !before.has(u));
  const lost = [...before].filter((u) => !after.has(u));
  const archived = c.is_archived ? { _archived: true } : {};
  if (gained.length > 0) emit(streamCreate.build({ op: 'create', streams: [channelObject(state, c)], ...archived }, { userIds: gained }));
  if (lost.length > 0) {
    emit(streamDelete.build({ op: 'delete', streams: [channelObject(state, c)], stream_ids: [c.id], ...archived }, { userIds: lost }));
  }
}

/** The channel for a metadata-level change: it must exist and the actor must administer it. */
export function channelToAdminister(state: RealmState, actor: UserRecord, channelId: number): ChannelRecord {
  const c = state.channels.get(channelId);
  if (!c) throw errors.invalidChannelId();
  if (isAdmin(actor.role) || (canSeeChannel(state, actor, c) && canAdminister(state, actor, c))) return c;
  // Only reveal "not an administrator" to users who can read the channel anyway.
  if (canReadChannel(state, actor, c)) throw errors.cannotAdministerChannel();
  throw errors.invalidChannelId();
}

export interface UpdateChannelInput {
  readonly actorId: number;
  readonly channelId: number;
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly isPrivate?: boolean | undefined;
  readonly isWebPublic?: boolean | undefined;
  readonly historyPublic?: boolean | undefined;
  readonly isDefault?: boolean | undefined;
  readonly messageRetentionDays?: number | null | undefined;
  readonly isArchived?: boolean | undefined;
  readonly folderId?: number | null | undefined;
  readonly topicsPolicy?: TopicsPolicy | undefined;
  readonly groupSettings?: Partial<Record<ChannelGroupSetting, { new: GroupSettingInput; old?: GroupSettingInput | undefined }>>;
}

type Change = { property: string; value: unknown; extra?: Record<string, unknown> };

type GroupSettingValue = ReturnType<RealmState['groupSettingValue']>;

/** A channel as it was before a command and as it is after it. */
export interface ChannelChange {
  readonly before: ChannelRecord;
  readonly after: ChannelRecord;
  /**
   * Who may post (can_send_message_group) before and after, in the API's form, when that changed:
   * read in the command's turn, since an anonymous group's members are not kept once replaced.
   */
  readonly senders: { readonly before: GroupSettingValue; readonly after: GroupSettingValue } | null;
}

/** PATCH /streams/{id}: what changed (archived, its name, description, access, …), or null for nothing. */
async function updateChannel(ctx: RealmContext, input: UpdateChannelInput): Promise<ChannelChange | null> {
  const { state } = ctx;
  const actor = actorOf(state, input.actorId);
  const c = channelToAdminister(state, actor, input.channelId);
  if (input.isArchived === true) return archiveChannel(ctx, { actorId: input.actorId, channelId: input.channelId });
  // Unarchived once every other change is checked: a refused request leaves the channel as it was.
  const unarchiving = input.isArchived === false && c.is_archived;
  const current = c;
  const patch: store.ChannelPatch = {};
  const changes: Change[] = [];
  let data: RenderData | null = null;

  if (input.name !== undefined) {
    const name = checkChannelName(input.name);
    if (name !== current.name) {
      const other = state.channels.byName(name);
      if (other && other.id !== current.id) throw errors.channelExists(name);
      patch.name = name;
      changes.push({ property: 'name', value: name });
    }
  }
  if (input.description !== undefined) {
    const description = checkChannelDescription(input.description);
    if (description !== current.description) {
      data = renderData(state);
      patch.description = description;
      patch.rendered_description = renderDescription(state, data, description);
      changes.push({ property: 'description', value: description, extra: { rendered_description: patch.rendered_description } });
    }
  }
  const inviteOnly = input.isPrivate ?? current.invite_only;
  const isWebPublic = input.isWebPublic ?? (inviteOnly ? false : current.is_web_public);
  // Making a channel private without saying otherwise protects its history.
  const privacyChanged = input.isPrivate !== undefined && input.isPrivate !== current.invite_only;
  const historyPublic = inviteOnly ? (input.historyPublic ?? (privacyChanged ? false : current.history_public_to_subscribers)) : true;
  const isDefault = input.isDefault ?? state.channels.defaultChannelIds.has(current.id);
  if (inviteOnly && isWebPublic) throw errors.badRequest('A web-public channel cannot be private.');
  if (inviteOnly && isDefault) throw errors.badRequest('A default channel cannot be private.');
  if (isWebPublic !== current.is_web_public) checkWebPublic(state, actor, isWebPublic);
  if (input.historyPublic === false && !inviteOnly) throw errors.badRequest('Invalid parameters');
  if (inviteOnly !== current.invite_only || historyPublic !== current.history_public_to_subscribers || isWebPublic !== current.is_web_public) {
    // Changing who may read the channel needs the right to read it.
    if (!canReadChannel(state, actor, current)) throw errors.invalidChannelId();
    if (!historyPublic) checkCreateTopicGroup(state, false, current.settings.can_create_topic_group);
    patch.invite_only = inviteOnly;
    patch.history_public_to_subscribers = historyPublic;
    patch.is_web_public = isWebPublic;
    if (inviteOnly !== current.invite_only) {
      changes.push({ property: 'invite_only', value: inviteOnly, extra: { history_public_to_subscribers: historyPublic, is_web_public: isWebPublic } });
    }
    if (historyPublic !== current.history_public_to_subscribers) changes.push({ property: 'history_public_to_subscribers', value: historyPublic });
    if (isWebPublic !== current.is_web_public) changes.push({ property: 'is_web_public', value: isWebPublic });
  }
  if (input.messageRetentionDays !== undefined) {
    if (!isOwner(actor.role)) throw errors.mustBeOwner();
    const days = checkRetentionDays(input.messageRetentionDays);
    if (days !== current.message_retention_days) {
      patch.message_retention_days = days;
      changes.push({ property: 'message_retention_days', value: days });
    }
  }
  if (input.topicsPolicy !== undefined && input.topicsPolicy !== current.topics_policy) {
    checkTopicsPolicyPermission(state, actor, input.topicsPolicy === 'inherit' ? 'allow_empty_topic' : input.topicsPolicy);
    if (input.topicsPolicy === 'empty_topic_only' && (await store.channelHasNamedTopics(ctx.services.db, current.id))) {
      throw errors.badRequest(
        `To enable this configuration, all messages in this channel must be in the ${state.realm.settings.empty_topic_display_name} topic. Consider renaming or deleting other topics.`,
      );
    }
    patch.topics_policy = input.topicsPolicy;
    changes.push({ property: 'topics_policy', value: input.topicsPolicy });
  }
  if (input.folderId !== undefined && input.folderId !== current.folder_id) {
    if (input.folderId !== null && !(await store.folderExists(ctx.services.db, state.id, input.folderId))) throw errors.badRequest('Invalid channel folder ID');
    patch.folder_id = input.folderId;
    changes.push({ property: 'folder_id', value: input.folderId });
  }
  const settingChanges: Array<[ChannelGroupSetting, GroupSettingInput]> = [];
  for (const [setting, v] of Object.entries(input.groupSettings ?? {}) as Array<[ChannelGroupSetting, { new: GroupSettingInput; old?: GroupSettingInput }]>) {
    if (v.old !== undefined && !sameGroupSetting(state, current.settings[setting], v.old)) {
      throw errors.badRequest("'old' value does not match the expected value.");
    }
    if (sameGroupSetting(state, current.settings[setting], v.new)) continue;
    checkChannelGroupSetting(state, actor, setting, v.new);
    if (setting === 'can_create_topic_group') checkCreateTopicGroup(state, historyPublic, v.new);
    settingChanges.push([setting, v.new]);
  }
  const defaultChanged = isDefault !== state.channels.defaultChannelIds.has(current.id);
  if (defaultChanged && !isAdmin(actor.role)) throw errors.unauthorizedPrincipal();
  if (unarchiving) await unarchiveChannel(ctx, actor, c);
  if (changes.length === 0 && settingChanges.length === 0 && !defaultChanged) {
    return unarchiving ? { before: c, after: state.channels.get(c.id)!, senders: null } : null;
  }

  const before = new Set(metadataAudience(state, current));
  const sendersBefore = state.groupSettingValue(current.settings.can_send_message_group);
  await ctx.write(async (tx, emit) => {
    const settings = { ...current.settings };
    const stored = await storeGroupSettings(tx, state, settingChanges, settings, ctx.services.clock.now());
    if (settingChanges.length > 0) patch.settings = settings;
    await store.updateChannel(tx, current.id, patch);
    if (defaultChanged) {
      if (isDefault) await store.addDefaultChannel(tx, state.id, current.id);
      else await store.removeDefaultChannel(tx, state.id, current.id);
    }
    // State, then events built from it (see the file comment).
    applyStoredGroupSettings(state, stored);
    state.channels.patch(current.id, (c) => ({ ...c, ...patch, settings }) as ChannelRecord);
    const updated = state.channels.get(current.id)!;
    // Updates go to who sees the channel before and after; the others get create or delete.
    const audience = metadataAudience(state, updated).filter((u) => before.has(u));
    // Clients without archived_channels hear nothing about archived channels.
    const archived = updated.is_archived ? { _archived: true } : {};
    const update = (property: string, value: unknown, extra: Record<string, unknown> = {}, name = updated.name) =>
      emit(streamUpdate.build({ op: 'update', stream_id: current.id, name, property, value, ...extra, ...archived }, { userIds: audience }));
    for (const ch of changes) update(ch.property, ch.value, ch.extra, ch.property === 'name' ? current.name : updated.name);
    for (const [setting] of settingChanges) update(setting, state.groupSettingValue(settings[setting]));
    // Older clients read the deprecated fields derived from can_send_message_group.
    const policyBefore = channelObject(state, { ...updated, settings: current.settings }).stream_post_policy;
    const policyAfter = channelObject(state, updated).stream_post_policy;
    if (policyBefore !== policyAfter) {
      update('stream_post_policy', policyAfter);
      update('is_announcement_only', policyAfter === 2);
    }
    emitVisibilityChange(state, emit, updated, before);
    if (defaultChanged) {
      const ids = new Set(state.channels.defaultChannelIds);
      if (isDefault) ids.add(current.id);
      else ids.delete(current.id);
      state.channels.setDefaults(ids);
      emit(defaultStreams.build({ default_streams: [...ids].sort((a, b) => a - b) }, { userIds: null }));
    }
  });
  const after = state.channels.get(current.id)!;
  const sendersChanged = settingChanges.some(([setting]) => setting === 'can_send_message_group');
  return { before: c, after, senders: sendersChanged ? { before: sendersBefore, after: state.groupSettingValue(after.settings.can_send_message_group) } : null };
}

async function archiveChannel(ctx: RealmContext, input: { actorId: number; channelId: number }): Promise<ChannelChange> {
  const { state } = ctx;
  const actor = actorOf(state, input.actorId);
  const c = channelToAdminister(state, actor, input.channelId);
  if (c.is_archived) throw errors.badRequest('Channel is already archived');
  const audience = metadataAudience(state, c);
  const wasDefault = state.channels.defaultChannelIds.has(c.id);
  await ctx.write(async (tx, emit) => {
    await store.updateChannel(tx, c.id, { is_archived: true });
    if (wasDefault) await store.removeDefaultChannel(tx, state.id, c.id);
    state.channels.patch(c.id, (x) => ({ ...x, is_archived: true }));
    const archived = state.channels.get(c.id)!;
    emit(
      streamUpdate.build(
        { op: 'update', stream_id: c.id, name: c.name, property: 'is_archived', value: true, _stream: channelObject(state, archived) },
        { userIds: audience },
      ),
    );
    if (wasDefault) {
      const ids = new Set(state.channels.defaultChannelIds);
      ids.delete(c.id);
      state.channels.setDefaults(ids);
      emit(defaultStreams.build({ default_streams: [...ids].sort((a, b) => a - b) }, { userIds: null }));
    }
  });
  return { before: c, after: state.channels.get(c.id)!, senders: null };
}

async function unarchiveChannel(ctx: RealmContext, _actor: UserRecord, c: ChannelRecord): Promise<void> {
  const { state } = ctx;
  await ctx.write(async (tx, emit) => {
    await store.updateChannel(tx, c.id, { is_archived: false });
    state.channels.patch(c.id, (x) => ({ ...x, is_archived: false }));
    const active = state.channels.get(c.id)!;
    emit(
      streamUpdate.build(
        { op: 'update', stream_id: c.id, name: c.name, property: 'is_archived', value: false, _stream: channelObject(state, active) },
        { userIds: metadataAudience(state, active) },
      ),
    );
  });
}

async function setDefaultChannel(ctx: RealmContext, input: { actorId: number; channelId: number; isDefault: boolean }): Promise<void> {
  const { state } = ctx;
  const actor = actorOf(state, input.actorId);
  if (!isAdmin(actor.role)) throw errors.unauthorizedPrincipal();
  const c = state.channels.get(input.channelId);
  if (!c || !canSeeChannel(state, actor, c)) throw errors.invalidChannelId();
  if (input.isDefault && c.invite_only) throw errors.badRequest('Private channels cannot be made default.');
  if (input.isDefault && c.is_archived) throw errors.badRequest('Archived channels cannot be made default.');
  const ids = new Set(state.channels.defaultChannelIds);
  if (ids.has(c.id) === input.isDefault) return;
  await ctx.write(async (tx, emit) => {
    if (input.isDefault) {
      await store.addDefaultChannel(tx, state.id, c.id);
      ids.add(c.id);
    } else {
      await store.removeDefaultChannel(tx, state.id, c.id);
      ids.delete(c.id);
    }
    state.channels.setDefaults(ids);
    emit(defaultStreams.build({ default_streams: [...ids].sort((a, b) => a - b) }, { userIds: null }));
  });
}

export const channelCommands = {
  'channel.update': updateChannel,
  'channel.archive': archiveChannel,
  'channel.setDefault': setDefaultChannel,
};
