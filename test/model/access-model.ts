// The model of the model test: who may read which message and who hears of which change, written
// from the spec and the reference's rules, independently of Parley's code. Pure data and
// functions; the driver (world.ts) applies a command here only after the server accepted it.
//
// The rules, in one place:
// - A user *holds* a message (a row in their personal history) when they received it: the active
//   subscribers of its channel and its sender at send time, both participants of a direct message.
//   A move to another channel keeps only the rows of the destination's subscribers, and a
//   destination with protected history gives a row to each of its subscribers.
// - Content access to a channel: web-public, or subscribed, or a non-guest in a public channel.
//   Full history: content access and history shared (public channels always share it).
// - Read by id: held, or in a channel whose full history the user may read. A deactivated user
//   reads nothing. A channel narrow needs content access and shows the full history or the held
//   messages; the personal history (no channel in the narrow) shows exactly the held messages.
// - Events: `message` to the holders at send; `update_message` to whoever may read the message
//   afterwards and holds it or is subscribed to the channel it left or entered; `delete_message`
//   to whoever held it or was subscribed to its channel, could read it before and cannot after.
//   `subscription` add/remove to the subscriber, peer_add/peer_remove to the other users who may
//   see the channel's subscribers (web-public, subscribed, or a non-guest for a public channel or
//   an administrator for a private one); peer_remove and peer_add to them too when a subscriber
//   is deactivated or reactivated.

export const USERS = ['owner', 'admin', 'member', 'guest'] as const;
export type UserKey = (typeof USERS)[number];
export const CHANNELS = ['public', 'protected', 'shared', 'web'] as const;
export type ChannelKey = (typeof CHANNELS)[number];
export const ROLES = [200, 300, 400, 600] as const;
export type RoleCode = 100 | (typeof ROLES)[number];

export interface ModelUser {
  role: RoleCode;
  active: boolean;
}

export interface ModelChannel {
  readonly inviteOnly: boolean;
  readonly historyShared: boolean;
  readonly webPublic: boolean;
  readonly subs: Set<UserKey>;
}

export interface ModelMessage {
  readonly id: number;
  readonly sender: UserKey;
  channel: ChannelKey | null;
  /** Both participants of a direct message. */
  readonly dm: readonly UserKey[] | null;
  topic: string;
  content: string;
  readonly holders: Set<UserKey>;
}

export interface ModelState {
  readonly users: Record<UserKey, ModelUser>;
  readonly channels: Record<ChannelKey, ModelChannel>;
  readonly messages: ModelMessage[];
}

export const CHANNEL_KINDS: Record<ChannelKey, { inviteOnly: boolean; historyShared: boolean; webPublic: boolean }> = {
  public: { inviteOnly: false, historyShared: true, webPublic: false },
  protected: { inviteOnly: true, historyShared: false, webPublic: false },
  shared: { inviteOnly: true, historyShared: true, webPublic: false },
  web: { inviteOnly: false, historyShared: true, webPublic: true },
};

export const INITIAL_ROLES: Record<UserKey, RoleCode> = { owner: 100, admin: 200, member: 400, guest: 600 };

/** A fresh organization: the owner subscribed to every channel, nobody else. */
export function initialState(): ModelState {
  const users = Object.fromEntries(USERS.map((u) => [u, { role: INITIAL_ROLES[u], active: true }])) as Record<UserKey, ModelUser>;
  const channels = Object.fromEntries(CHANNELS.map((c) => [c, { ...CHANNEL_KINDS[c], subs: new Set<UserKey>(['owner']) }])) as Record<ChannelKey, ModelChannel>;
  return { users, channels, messages: [] };
}

const isGuest = (m: ModelState, u: UserKey) => m.users[u].role === 600;
const isAdmin = (m: ModelState, u: UserKey) => m.users[u].role <= 200;

export function contentAccess(m: ModelState, u: UserKey, c: ChannelKey): boolean {
  const ch = m.channels[c];
  return ch.webPublic || ch.subs.has(u) || (!isGuest(m, u) && !ch.inviteOnly);
}

export function fullHistory(m: ModelState, u: UserKey, c: ChannelKey): boolean {
  return contentAccess(m, u, c) && m.channels[c].historyShared;
}

export function metadataAccess(m: ModelState, u: UserKey, c: ChannelKey): boolean {
  const ch = m.channels[c];
  if (ch.webPublic || ch.subs.has(u)) return true;
  if (isGuest(m, u)) return false;
  return !ch.inviteOnly || isAdmin(m, u);
}

export function canRead(m: ModelState, u: UserKey, msg: ModelMessage): boolean {
  if (!m.users[u].active) return false;
  return msg.holders.has(u) || (msg.channel !== null && fullHistory(m, u, msg.channel));
}

/** The messages (among `msgs`) a channel narrow shows, or null: the narrow is refused. */
export function channelNarrow(m: ModelState, u: UserKey, c: ChannelKey, msgs: readonly ModelMessage[]): ModelMessage[] | null {
  if (!contentAccess(m, u, c)) return null;
  const all = fullHistory(m, u, c);
  return msgs.filter((x) => x.channel === c && (all || x.holders.has(u)));
}

export const personalHistory = (u: UserKey, msgs: readonly ModelMessage[]) => msgs.filter((x) => x.holders.has(u));

export const activeUsers = (m: ModelState) => USERS.filter((u) => m.users[u].active);

export function cloneState(m: ModelState): ModelState {
  return {
    users: Object.fromEntries(USERS.map((u) => [u, { ...m.users[u] }])) as Record<UserKey, ModelUser>,
    channels: Object.fromEntries(CHANNELS.map((c) => [c, { ...m.channels[c], subs: new Set(m.channels[c].subs) }])) as Record<ChannelKey, ModelChannel>,
    messages: m.messages.map((x) => ({ ...x, holders: new Set(x.holders) })),
  };
}

/** One expected event of one user, as a comparable string. */
export type EventKey = string;
export type ExpectedEvents = Map<UserKey, EventKey[]>;

function expect(out: ExpectedEvents, u: UserKey, e: EventKey): void {
  let l = out.get(u);
  if (!l) out.set(u, (l = []));
  l.push(e);
}

// Transitions: each mutates the model and returns the events every active user should get.

export function applySend(m: ModelState, o: { id: number; sender: UserKey; channel: ChannelKey | null; dmTo: UserKey | null; topic: string; content: string }): ExpectedEvents {
  const holders = new Set<UserKey>([o.sender]);
  if (o.channel !== null) for (const s of m.channels[o.channel].subs) if (m.users[s].active) holders.add(s);
  if (o.dmTo !== null) holders.add(o.dmTo);
  m.messages.push({ id: o.id, sender: o.sender, channel: o.channel, dm: o.dmTo === null ? null : [o.sender, o.dmTo], topic: o.topic, content: o.content, holders });
  const out: ExpectedEvents = new Map();
  for (const u of holders) if (m.users[u].active) expect(out, u, `message ${o.id}`);
  return out;
}

/** A content edit (`content`) or a move of one message (`channel`/`topic`). */
export function applyEdit(m: ModelState, msg: ModelMessage, change: { content?: string; channel?: ChannelKey; topic?: string }): ExpectedEvents {
  const before = cloneState(m);
  const old = before.messages.find((x) => x.id === msg.id)!;
  const from = msg.channel;
  if (change.content !== undefined) msg.content = change.content;
  if (change.topic !== undefined) msg.topic = change.topic;
  const to = change.channel ?? from;
  if (to !== null && to !== from) {
    msg.channel = to;
    const dest = m.channels[to];
    for (const u of [...msg.holders]) if (!dest.subs.has(u)) msg.holders.delete(u);
    if (!dest.historyShared) for (const s of dest.subs) if (m.users[s].active) msg.holders.add(s);
  }
  const out: ExpectedEvents = new Map();
  for (const u of activeUsers(m)) {
    const follows = (s: ModelState, x: ModelMessage) => x.holders.has(u) || (x.channel !== null && s.channels[x.channel].subs.has(u));
    const readsBefore = canRead(before, u, old);
    const readsAfter = canRead(m, u, msg);
    if (readsAfter && (msg.holders.has(u) || follows(before, old) || follows(m, msg))) expect(out, u, `update_message ${msg.id}`);
    else if (readsBefore && !readsAfter && follows(before, old)) expect(out, u, `delete_message ${msg.id}`);
  }
  return out;
}

function peers(m: ModelState, c: ChannelKey, except: UserKey): UserKey[] {
  return activeUsers(m).filter((u) => u !== except && metadataAccess(m, u, c));
}

export function applySubscribe(m: ModelState, who: UserKey, c: ChannelKey): ExpectedEvents {
  const out: ExpectedEvents = new Map();
  if (m.channels[c].subs.has(who)) return out;
  m.channels[c].subs.add(who);
  if (m.users[who].active) expect(out, who, `subscription add ${c}`);
  for (const u of peers(m, c, who)) expect(out, u, `subscription peer_add ${c} ${who}`);
  return out;
}

export function applyUnsubscribe(m: ModelState, who: UserKey, c: ChannelKey): ExpectedEvents {
  const out: ExpectedEvents = new Map();
  if (!m.channels[c].subs.has(who)) return out;
  m.channels[c].subs.delete(who);
  if (m.users[who].active) expect(out, who, `subscription remove ${c}`);
  for (const u of peers(m, c, who)) expect(out, u, `subscription peer_remove ${c} ${who}`);
  return out;
}

export function applyRole(m: ModelState, who: UserKey, role: RoleCode): ExpectedEvents {
  m.users[who].role = role;
  return new Map();
}

/** Subscriber lists hold active users: a subscriber's peers hear of a deactivation or a reactivation. */
export function applyActive(m: ModelState, who: UserKey, active: boolean): ExpectedEvents {
  m.users[who].active = active;
  const out: ExpectedEvents = new Map();
  for (const c of CHANNELS) {
    if (!m.channels[c].subs.has(who)) continue;
    for (const u of peers(m, c, who)) expect(out, u, `subscription ${active ? 'peer_add' : 'peer_remove'} ${c} ${who}`);
  }
  return out;
}
