// The cached channels of an organization: records by id and name, active subscribers, default
// channels; and the direct-message partners of each user. Handlers read it synchronously for
// permission checks and fan-out; the realm actor changes channels and subscriptions (after
// commit); conversation actors only add direct-message partners and first message ids, through
// the small patch methods below, so no writer ever replaces a record it read earlier.
import type { CommonQueryMethods } from 'slonik';
import { CHANNEL_GROUP_DEFAULTS, CHANNEL_GROUP_SETTINGS, type ChannelGroupSetting } from '../../domain/channels.js';
import { SystemGroup, type SystemGroupName } from '../../domain/system-groups.js';
import { listActiveSubscriptions, listChannels, listDefaultChannels, type ChannelRow } from '../../store/channels.js';
import { listDmKeys } from '../../store/messages.js';

export interface ChannelRecord extends Omit<ChannelRow, 'settings'> {
  readonly settings: Readonly<Record<ChannelGroupSetting, number>>;
}

/** Parse stored settings; a missing key (older rows) takes its system-group default. */
export function toChannelRecord(row: ChannelRow, systemGroupId: (name: SystemGroupName) => number): ChannelRecord {
  const raw = (row.settings ?? {}) as Record<string, unknown>;
  const settings = {} as Record<ChannelGroupSetting, number>;
  for (const s of CHANNEL_GROUP_SETTINGS) {
    const v = raw[s];
    const fallback = CHANNEL_GROUP_DEFAULTS[s];
    settings[s] = typeof v === 'number' ? v : systemGroupId(fallback === 'creator' ? SystemGroup.nobody : fallback);
  }
  return { ...row, settings };
}

const EMPTY: ReadonlySet<number> = new Set();

/** sorted user ids joined by commas: the key of a direct-message conversation. */
export function dmKeyOf(userIds: Iterable<number>): string {
  return [...new Set(userIds)].sort((a, b) => a - b).join(',');
}

export function dmKeyUsers(key: string): number[] {
  return key.split(',').map(Number);
}

export class ChannelIndex {
  private readonly byId = new Map<number, ChannelRecord>();
  private readonly names = new Map<string, number>();
  private readonly subscribersOf = new Map<number, Set<number>>();
  private readonly channelsOf = new Map<number, Set<number>>();
  private readonly dmPartners = new Map<number, Set<number>>();
  private defaults: ReadonlySet<number> = EMPTY;
  /** Bumped on every change that can alter who sees whom (peersOf memo). */
  private version = 0;
  private readonly peerMemo = new Map<number, { version: number; peers: ReadonlySet<number> }>();

  get(id: number): ChannelRecord | undefined {
    return this.byId.get(id);
  }

  byName(name: string): ChannelRecord | undefined {
    const id = this.names.get(name.trim().toLowerCase());
    return id === undefined ? undefined : this.byId.get(id);
  }

  all(): IterableIterator<ChannelRecord> {
    return this.byId.values();
  }

  /** Insert or replace a channel record (realm actor, after commit). */
  put(c: ChannelRecord): void {
    const prev = this.byId.get(c.id);
    if (prev && prev.name.toLowerCase() !== c.name.toLowerCase()) this.names.delete(prev.name.toLowerCase());
    this.byId.set(c.id, c);
    this.names.set(c.name.toLowerCase(), c.id);
  }

  /** Change fields of the current record (so concurrent writers never lose each other's fields). */
  patch(id: number, f: (c: ChannelRecord) => ChannelRecord): void {
    const c = this.byId.get(id);
    if (c) this.put(f(c));
  }

  subscribers(channelId: number): ReadonlySet<number> {
    return this.subscribersOf.get(channelId) ?? EMPTY;
  }

  subscriptionsOf(userId: number): ReadonlySet<number> {
    return this.channelsOf.get(userId) ?? EMPTY;
  }

  isSubscribed(userId: number, channelId: number): boolean {
    return this.subscribersOf.get(channelId)?.has(userId) ?? false;
  }

  addSubscribers(channelId: number, userIds: Iterable<number>): void {
    let set = this.subscribersOf.get(channelId);
    if (!set) this.subscribersOf.set(channelId, (set = new Set()));
    for (const u of userIds) {
      set.add(u);
      let mine = this.channelsOf.get(u);
      if (!mine) this.channelsOf.set(u, (mine = new Set()));
      mine.add(channelId);
    }
    this.version++;
  }

  removeSubscribers(channelId: number, userIds: Iterable<number>): void {
    const set = this.subscribersOf.get(channelId);
    for (const u of userIds) {
      set?.delete(u);
      this.channelsOf.get(u)?.delete(channelId);
    }
    this.version++;
  }

  get defaultChannelIds(): ReadonlySet<number> {
    return this.defaults;
  }

  setDefaults(ids: Iterable<number>): void {
    this.defaults = new Set(ids);
  }

  /** Record that these users share a direct-message conversation (conversation actors, after commit). */
  addDmConversation(userIds: readonly number[]): void {
    if (userIds.length < 2) return;
    let changed = false;
    for (const u of userIds) {
      let mine = this.dmPartners.get(u);
      if (!mine) this.dmPartners.set(u, (mine = new Set()));
      for (const v of userIds) {
        if (v !== u && !mine.has(v)) {
          mine.add(v);
          changed = true;
        }
      }
    }
    if (changed) this.version++;
  }

  /**
   * Users a viewer shares a channel subscription or a direct-message conversation with: whom a
   * user outside can_access_all_users_group may still see.
   */
  peersOf(viewerId: number): ReadonlySet<number> {
    const memo = this.peerMemo.get(viewerId);
    if (memo && memo.version === this.version) return memo.peers;
    const peers = new Set<number>(this.dmPartners.get(viewerId) ?? EMPTY);
    for (const c of this.subscriptionsOf(viewerId)) for (const u of this.subscribers(c)) peers.add(u);
    this.peerMemo.set(viewerId, { version: this.version, peers });
    return peers;
  }
}

export async function loadChannelIndex(
  db: CommonQueryMethods,
  realmId: number,
  systemGroupId: (name: SystemGroupName) => number,
): Promise<ChannelIndex> {
  const [channels, subs, defaults, dmKeys] = await Promise.all([
    listChannels(db, realmId),
    listActiveSubscriptions(db, realmId),
    listDefaultChannels(db, realmId),
    listDmKeys(db, realmId),
  ]);
  const index = new ChannelIndex();
  for (const c of channels) index.put(toChannelRecord(c, systemGroupId));
  const byChannel = new Map<number, number[]>();
  for (const s of subs) {
    let list = byChannel.get(s.channel_id);
    if (!list) byChannel.set(s.channel_id, (list = []));
    list.push(s.user_id);
  }
  for (const [c, users] of byChannel) index.addSubscribers(c, users);
  index.setDefaults(defaults);
  for (const key of dmKeys) index.addDmConversation(dmKeyUsers(key));
  return index;
}
