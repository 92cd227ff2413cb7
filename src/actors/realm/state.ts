// What a realm actor keeps in memory: the organization, its users and its groups. Handlers read
// it synchronously for authentication and permission checks; only the realm actor changes it,
// and only after the change committed. Records are immutable: a change replaces the record in
// its map, so a handler holding one across an await sees a consistent (if older) value.
import type { CommonQueryMethods } from 'slonik';
import { isMemberRecursive, type GroupLike } from '../../domain/group-membership.js';
import { parseRealmSettings, type RealmSettings } from '../../domain/realm-settings.js';
import { SystemGroup, type SystemGroupName } from '../../domain/system-groups.js';
import { parseUserSettings, type UserSettings } from '../../domain/user-settings.js';
import { realmEmojiPath, type RealmEmojiRecord } from '../../domain/realm-emoji.js';
import { listGroups, type GroupRow } from '../../store/groups.js';
import { listLinkifiers } from '../../store/linkifiers.js';
import { listRealmEmoji } from '../../store/realm-emoji.js';
import { getRealm, type RealmRow } from '../../store/realms.js';
import { listRealmMutes } from '../../store/muted-users.js';
import { listRealmUsers, type UserRow } from '../../store/users.js';
import { ChannelIndex, loadChannelIndex } from './channel-index.js';
import { MutedUsers } from './muted-users.js';

export interface RealmRecord extends Omit<RealmRow, 'settings'> {
  readonly settings: RealmSettings;
}

export interface UserRecord extends Omit<UserRow, 'settings'> {
  readonly settings: UserSettings;
}

export interface GroupRecord extends Omit<GroupRow, 'members' | 'subgroups' | 'settings' | 'deactivated'>, GroupLike {
  readonly settings: Readonly<Record<string, number>>;
}

export interface LinkifierRecord {
  readonly id: number;
  readonly pattern: string;
  readonly url_template: string;
}

/** Custom emoji and linkifiers: what the Markdown renderer needs besides users and groups. */
export interface RealmContent {
  readonly emoji: readonly RealmEmojiRecord[];
  readonly linkifiers: readonly LinkifierRecord[];
}

export const toRealmRecord = (r: RealmRow): RealmRecord => ({ ...r, settings: parseRealmSettings(r.settings) });
export const toUserRecord = (u: UserRow): UserRecord => ({ ...u, settings: parseUserSettings(u.settings) });
export const toGroupRecord = (g: GroupRow): GroupRecord => ({
  ...g,
  settings: (g.settings ?? {}) as Record<string, number>,
  members: new Set(g.members),
  subgroups: new Set(g.subgroups),
});

export class RealmState {
  realm: RealmRecord;
  readonly users = new Map<number, UserRecord>();
  private readonly byEmail = new Map<string, number>();
  private readonly byDeliveryEmail = new Map<string, number>();
  /** Users (bots included) whose accounts are active, kept by putUser. */
  private active = 0;
  /**
   * Active users' ids by lower-cased full name: the id, or the ids where several share the name.
   * Made when first asked for, then kept by putUser: dropped and made again at each change of a
   * name or an account's activity, it cost a walk over every user (73–85 ms at 100,000) for the
   * first mention by name or unique-name check after each sign-up.
   */
  private byName: Map<string, number | number[]> | null = null;
  readonly groups = new Map<number, GroupRecord>();
  readonly systemGroups = new Map<SystemGroupName, number>();
  /** Channels, their subscribers, default channels and direct-message partners (messaging). */
  channels = new ChannelIndex();
  /** Custom emoji by id, deactivated ones included. */
  readonly realmEmoji = new Map<number, RealmEmojiRecord>();
  /** In the organization's order: earlier ones win where matches overlap. */
  linkifiers: readonly LinkifierRecord[] = [];
  /** Whom each user muted. */
  readonly mutes = new MutedUsers();

  constructor(realm: RealmRecord, users: readonly UserRecord[], groups: readonly GroupRecord[], content?: RealmContent) {
    this.realm = realm;
    for (const u of users) this.putUser(u);
    for (const g of groups) this.putGroup(g);
    for (const e of content?.emoji ?? []) this.realmEmoji.set(e.id, e);
    this.linkifiers = content?.linkifiers ?? [];
  }

  /** The active custom emoji of this name, if any. */
  activeEmojiNamed(name: string): RealmEmojiRecord | undefined {
    for (const e of this.realmEmoji.values()) if (!e.deactivated && e.name === name) return e;
    return undefined;
  }

  /** MarkdownContext.realmEmoji over the cached custom emoji. */
  markdownEmoji(name: string): { id: string; name: string; url: string } | null {
    const e = this.activeEmojiNamed(name);
    return e ? { id: String(e.id), name: e.name, url: realmEmojiPath(this.id, e.file_name) } : null;
  }

  /** MarkdownContext.linkifiers over the cached linkifiers, in order. */
  markdownLinkifiers(): ReadonlyArray<{ id: number; pattern: string; urlTemplate: string }> {
    return this.linkifiers.map((l) => ({ id: l.id, pattern: l.pattern, urlTemplate: l.url_template }));
  }

  get id(): number {
    return this.realm.id;
  }

  user(id: number): UserRecord | undefined {
    return this.users.get(id);
  }

  /** By API email (what Basic authentication presents), case-insensitively. */
  userByEmail(email: string): UserRecord | undefined {
    const id = this.byEmail.get(email.toLowerCase());
    return id === undefined ? undefined : this.users.get(id);
  }

  /** By real address (the login name), case-insensitively. */
  userByDeliveryEmail(email: string): UserRecord | undefined {
    const id = this.byDeliveryEmail.get(email.toLowerCase());
    return id === undefined ? undefined : this.users.get(id);
  }

  /** How many users (bots included) are active: counted as they are put, not by a walk over all. */
  get activeUsers(): number {
    return this.active;
  }

  /**
   * The active user of this full name, in any case (a mention by name); null when there is none,
   * or when two active users share it, so that the name alone names neither. The index is kept
   * between calls: made for each message, it cost 73-85 ms at 100,000 users.
   */
  activeUserByName(name: string): UserRecord | null {
    const ids = this.nameIndex().get(name.toLowerCase());
    return typeof ids === 'number' ? this.users.get(ids)! : null;
  }

  /** Whether an active user other than `selfId` has this full name, in any case. */
  nameTakenByOther(name: string, selfId: number | null): boolean {
    const ids = this.nameIndex().get(name.toLowerCase());
    if (ids === undefined) return false;
    return typeof ids === 'number' ? ids !== selfId : ids.some((id) => id !== selfId);
  }

  private nameIndex(): Map<string, number | number[]> {
    if (this.byName === null) {
      this.byName = new Map();
      for (const u of this.users.values()) if (u.is_active) this.indexName(u, true);
    }
    return this.byName;
  }

  /** Add an active user to the name index, or take one out. */
  private indexName(u: UserRecord, add: boolean): void {
    const index = this.byName!;
    const key = u.full_name.toLowerCase();
    const ids = index.get(key);
    if (add) {
      if (ids === undefined) index.set(key, u.id);
      else if (typeof ids === 'number') index.set(key, [ids, u.id]);
      else ids.push(u.id);
    } else if (ids === u.id) index.delete(key);
    else if (Array.isArray(ids)) {
      const rest = ids.filter((id) => id !== u.id);
      index.set(key, rest.length === 1 ? rest[0]! : rest);
    }
  }

  putUser(u: UserRecord): void {
    const prev = this.users.get(u.id);
    if (prev?.is_active) this.active--;
    if (u.is_active) this.active++;
    if (this.byName !== null && (prev?.full_name !== u.full_name || prev.is_active !== u.is_active)) {
      if (prev?.is_active) this.indexName(prev, false);
      if (u.is_active) this.indexName(u, true);
    }
    if (prev && prev.email.toLowerCase() !== u.email.toLowerCase()) this.byEmail.delete(prev.email.toLowerCase());
    if (prev && prev.delivery_email.toLowerCase() !== u.delivery_email.toLowerCase()) {
      this.byDeliveryEmail.delete(prev.delivery_email.toLowerCase());
    }
    this.users.set(u.id, u);
    this.byEmail.set(u.email.toLowerCase(), u.id);
    this.byDeliveryEmail.set(u.delivery_email.toLowerCase(), u.id);
  }

  putGroup(g: GroupRecord): void {
    this.groups.set(g.id, g);
    if (g.is_system_group && g.name) this.systemGroups.set(g.name as SystemGroupName, g.id);
  }

  systemGroupId(name: SystemGroupName): number {
    const id = this.systemGroups.get(name);
    if (id === undefined) throw new Error(`Realm ${this.id} has no system group ${name}`);
    return id;
  }

  /**
   * A group-setting value in its API form (convention 8): a named group by id, an anonymous group
   * as {direct_members, direct_subgroups} without deactivated users.
   */
  groupSettingValue(groupId: number): number | { direct_members: number[]; direct_subgroups: number[] } {
    const g = this.groups.get(groupId);
    if (!g || g.name !== null) return groupId;
    return {
      direct_members: [...g.members].filter((id) => this.users.get(id)?.is_active).sort((a, b) => a - b),
      direct_subgroups: [...g.subgroups].sort((a, b) => a - b),
    };
  }

  /** Membership of an active user in a group, directly or through subgroups. */
  isInGroup(userId: number, groupId: number): boolean {
    const u = this.users.get(userId);
    if (!u || !u.is_active) return false;
    return isMemberRecursive(this.groups, groupId, userId);
  }

  /**
   * Users a viewer outside can_access_all_users_group may still see (shared channels, direct
   * messages); supplied by the messaging layer. Without it such viewers see only themselves.
   */
  peersOf: ((viewerId: number) => ReadonlySet<number>) | null = null;

  /** May the viewer (null: a spectator) see this user at all (can_access_all_users_group)? */
  canAccessUser(viewerId: number | null, targetId: number): boolean {
    if (viewerId === targetId) return true;
    const target = this.users.get(targetId);
    if (target?.is_bot) return true;
    // Spectators have less than guests: they see everyone only when guests do.
    if (viewerId === null) return this.realm.settings.groups.can_access_all_users_group === this.systemGroupId(SystemGroup.everyone);
    if (this.hasRealmPermission(viewerId, 'can_access_all_users_group')) return true;
    return this.peersOf?.(viewerId).has(targetId) ?? false;
  }

  /** Whether the user holds an organization-level group permission (e.g. can_create_groups). */
  hasRealmPermission(userId: number, setting: string): boolean {
    const groupId = this.realm.settings.groups[setting];
    return groupId !== undefined && this.isInGroup(userId, groupId);
  }
}

export async function loadRealmState(db: CommonQueryMethods, realmId: number): Promise<RealmState> {
  const [realm, users, groups, emoji, linkifiers, mutes] = await Promise.all([
    getRealm(db, realmId),
    listRealmUsers(db, realmId),
    listGroups(db, realmId),
    listRealmEmoji(db, realmId),
    listLinkifiers(db, realmId),
    listRealmMutes(db, realmId),
  ]);
  const state = new RealmState(toRealmRecord(realm), users.map(toUserRecord), groups.map(toGroupRecord), { emoji, linkifiers });
  for (const m of mutes) state.mutes.add(m.user_id, m.muted_user_id, m.date_muted);
  state.channels = await loadChannelIndex(db, realmId, (name) => state.systemGroupId(name));
  state.peersOf = (viewerId) => state.channels.peersOf(viewerId);
  return state;
}
