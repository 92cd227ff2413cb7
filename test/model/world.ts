// The real side of the model test: one organization with the cast and the four channels, driven
// through dispatch(), and observed the way clients observe it: GET /messages per channel and for
// the personal history, GET /messages/{id} per message, and one event queue per user.
import { Role } from '../../src/domain/roles.js';
import { assertSuccess } from '../helpers/assert.js';
import type { TestRealm, TestResponse, TestServer, TestUser } from '../helpers/server.js';
import {
  CHANNELS,
  CHANNEL_KINDS,
  INITIAL_ROLES,
  USERS,
  activeUsers,
  canRead,
  channelNarrow,
  initialState,
  personalHistory,
  type ChannelKey,
  type ExpectedEvents,
  type ModelMessage,
  type ModelState,
  type UserKey,
} from './access-model.js';

const EVENT_TYPES = ['message', 'update_message', 'delete_message', 'subscription'];

export interface Queue {
  readonly id: string;
  last: number;
}

/** A discrepancy between the server and the model, with where it was seen. */
export class Violation extends Error {}

export class World {
  readonly model: ModelState = initialState();
  readonly queues = new Map<UserKey, Queue>();
  readonly channelIds = {} as Record<ChannelKey, number>;
  readonly channelKeys = new Map<number, ChannelKey>();
  /** Messages of the current sequence (reads are checked over these). */
  window: ModelMessage[] = [];

  private constructor(
    readonly realm: TestRealm,
    readonly users: Record<UserKey, TestUser>,
  ) {}

  static async create(server: TestServer, n: number): Promise<World> {
    const realm = await server.createRealm({ name: `Model ${n}` });
    await realm.updateSettings({ enable_spectator_access: true });
    const users = { owner: realm.owner } as Record<UserKey, TestUser>;
    const names: Record<UserKey, string> = { owner: 'Olivia Owner', admin: 'Ada Admin', member: 'Mel Member', guest: 'Gus Guest' };
    for (const u of USERS) if (u !== 'owner') users[u] = await realm.createUser({ role: INITIAL_ROLES[u] as Role, name: names[u] });
    const w = new World(realm, users);
    for (const c of CHANNELS) {
      const k = CHANNEL_KINDS[c];
      assertSuccess(
        await realm.owner.post('/api/v1/users/me/subscriptions', {
          subscriptions: [{ name: c }],
          invite_only: k.inviteOnly,
          history_public_to_subscribers: k.historyShared,
          is_web_public: k.webPublic,
        }),
      );
      const id = realm.handle.state.channels.byName(c)!.id;
      w.channelIds[c] = id;
      w.channelKeys.set(id, c);
    }
    for (const u of USERS) await w.register(u);
    return w;
  }

  userId(u: UserKey): number {
    return this.users[u].id;
  }

  async register(u: UserKey): Promise<void> {
    const r = assertSuccess(
      await this.users[u].post('/api/v1/register', {
        event_types: EVENT_TYPES,
        fetch_event_types: [],
        client_capabilities: { bulk_message_deletion: true },
      }),
    );
    this.queues.set(u, { id: r.queue_id, last: r.last_event_id });
  }

  /** Start a sequence: reads are checked over the messages it sends. */
  startSequence(): void {
    this.window = [];
  }

  /** Describe a server event as the model's event keys. */
  private eventKeys(e: Record<string, any>): string[] { // eslint-disable-line @typescript-eslint/no-explicit-any
    const who = (id: number) => USERS.find((u) => this.users[u].id === id) ?? `user${id}`;
    const ch = (id: number) => this.channelKeys.get(id) ?? `channel${id}`;
    switch (e.type) {
      case 'message':
        return [`message ${e.message.id}`];
      case 'update_message':
        return (e.message_ids as number[]).map((id) => `update_message ${id}`);
      case 'delete_message':
        return (e.message_ids as number[]).map((id) => `delete_message ${id}`);
      case 'subscription':
        if (e.op === 'add' || e.op === 'remove') return (e.subscriptions as Array<{ stream_id: number }>).map((s) => `subscription ${e.op} ${ch(s.stream_id)}`);
        if (e.op === 'peer_add' || e.op === 'peer_remove') {
          const out: string[] = [];
          for (const s of e.stream_ids as number[]) for (const u of e.user_ids as number[]) out.push(`subscription ${e.op} ${ch(s)} ${who(u)}`);
          return out;
        }
        return [];
      default:
        return [`${e.type} ${e.op ?? ''}`];
    }
  }

  /** Every active user's queue holds exactly the expected events; deactivated users have none. */
  async checkEvents(expected: ExpectedEvents, step: string): Promise<void> {
    for (const u of USERS) {
      const q = this.queues.get(u);
      if (!this.model.users[u].active) {
        if (q) {
          const r = await this.users[u].get('/api/v1/events', { queue_id: q.id, last_event_id: q.last, dont_block: true });
          if (r.json.result !== 'error') throw new Violation(`${step}: deactivated ${u} can still read its queue: ${r.text.slice(0, 300)}`);
          this.queues.delete(u);
        }
        continue;
      }
      if (!q) throw new Error(`no queue for ${u}`);
      const r = await this.users[u].get('/api/v1/events', { queue_id: q.id, last_event_id: q.last, dont_block: true });
      if (r.json.result !== 'success') throw new Violation(`${step}: ${u}'s queue failed: ${r.text.slice(0, 300)}`);
      const events = (r.json.events as Array<Record<string, any>>).filter((e) => e.type !== 'heartbeat'); // eslint-disable-line @typescript-eslint/no-explicit-any
      if (r.json.events.length > 0) q.last = r.json.events.at(-1).id;
      const got = events.flatMap((e) => this.eventKeys(e)).sort();
      const want = [...(expected.get(u) ?? [])].sort();
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        throw new Violation(`${step}: ${u} received events [${got.join(', ')}], the model says [${want.join(', ')}]`);
      }
    }
  }

  /** What every user reads: each channel narrow, the personal history, each message by id. */
  async checkReads(step: string): Promise<void> {
    const m = this.model;
    const since = this.window.length > 0 ? this.window[0]!.id - 1 : null;
    for (const u of USERS) {
      const user = this.users[u];
      if (!m.users[u].active) {
        const r = await user.get('/api/v1/messages', { anchor: 'newest', num_before: 1, num_after: 0 });
        if (r.status !== 401) throw new Violation(`${step}: deactivated ${u} got ${r.status} from GET /messages`);
        continue;
      }
      if (since === null) continue;
      for (const c of CHANNELS) {
        const want = channelNarrow(m, u, c, this.window);
        const r = await this.fetchAfter(user, since, [['channel', this.channelIds[c]]]);
        this.compareList(r, want, `${step}: ${u} reading channel ${c}`);
      }
      this.compareList(await this.fetchAfter(user, since, []), personalHistory(u, this.window), `${step}: ${u} reading their history`);
      for (const msg of this.window) {
        const r = await user.get(`/api/v1/messages/${msg.id}`, { apply_markdown: false });
        const readable = canRead(m, u, msg);
        if (readable && r.status !== 200) throw new Violation(`${step}: ${u} cannot read message ${msg.id} by id: ${r.text.slice(0, 200)}`);
        if (!readable && r.json.result !== 'error') throw new Violation(`${step}: ${u} reads message ${msg.id} by id, the model says no`);
        if (readable) this.compareMessage(r.json.message, msg, `${step}: ${u} reading message ${msg.id} by id`);
      }
    }
  }

  private fetchAfter(user: TestUser, since: number, narrow: unknown[]): Promise<TestResponse> {
    return user.get('/api/v1/messages', { anchor: since, include_anchor: false, num_before: 0, num_after: 100, narrow, apply_markdown: false });
  }

  private compareList(r: TestResponse, want: ModelMessage[] | null, where: string): void {
    if (want === null) {
      if (r.json.result !== 'error') throw new Violation(`${where}: the narrow is allowed, the model refuses it`);
      return;
    }
    if (r.json.result !== 'success') throw new Violation(`${where}: ${r.text.slice(0, 200)}`);
    const got = (r.json.messages as Array<{ id: number }>).map((x) => x.id);
    const ids = want.map((x) => x.id);
    if (JSON.stringify(got) !== JSON.stringify(ids)) throw new Violation(`${where}: got [${got.join(', ')}], the model says [${ids.join(', ')}]`);
    for (const [i, x] of (r.json.messages as Array<Record<string, unknown>>).entries()) this.compareMessage(x, want[i]!, where);
  }

  private compareMessage(got: Record<string, unknown>, want: ModelMessage, where: string): void {
    const stream = want.channel === null ? undefined : this.channelIds[want.channel];
    const ok = got.content === want.content && (want.channel === null || (got.stream_id === stream && got.subject === want.topic));
    if (!ok) {
      throw new Violation(`${where}: message ${want.id} is ${JSON.stringify({ stream_id: got.stream_id, subject: got.subject, content: got.content })}, the model says ${JSON.stringify({ channel: want.channel, topic: want.topic, content: want.content })}`);
    }
  }

  /** Users whose queue ended on deactivation get a new one once reactivated. */
  async reopenQueues(): Promise<void> {
    for (const u of activeUsers(this.model)) if (!this.queues.has(u)) await this.register(u);
  }
}
