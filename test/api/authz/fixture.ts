// The organization the authorization matrix probes: one channel per visibility with a message
// (edited, reacted to, linking an upload), direct messages between two non-callers, a user the
// guest may not access, and one event queue per caller. Every secret is a marker string or an id
// registered with the model of who may see it.
import { SystemGroup } from '../../../src/domain/system-groups.js';
import { assertSuccess } from '../../helpers/assert.js';
import { drainEvents } from '../../helpers/consistency.js';
import { createChannel } from '../../helpers/messaging.js';
import { multipart } from '../../helpers/people.js';
import { oneOfEachRole, type OneOfEachRole } from '../../helpers/roles.js';
import { basic, startTestServer, type Params, type RequestOptions, type TestRealm, type TestResponse, type TestServer, type TestUser } from '../../helpers/server.js';
import { CHANNEL_VIS, marker, type Caller, type ChannelVis, type Level, type Marker, type MessageVis, type SecretId, type Viewer, type Vis } from './model.js';
import type { Secrets } from './scan.js';

export const API = '/api/v1';

export interface Upload {
  readonly url: string;
  readonly apiUrl: string;
  readonly attachmentId: number;
}

export interface VisObjects {
  readonly channelId: number;
  readonly channelName: string;
  readonly description: string;
  readonly topic: string;
  readonly messageId: number;
  readonly upload: Upload;
}

export interface DmObjects {
  readonly messageId: number;
  readonly groupMessageId: number;
  readonly upload: Upload;
}

/** Callers that hold a working key of this organization (each has an event queue). */
export const QUEUE_CALLERS = ['guest', 'member', 'moderator', 'admin', 'owner', 'bot', 'otherOrgHome'] as const;
type QueueCaller = (typeof QUEUE_CALLERS)[number];

export class Fixture implements Secrets {
  readonly markers: Marker[] = [];
  readonly ids: SecretId[] = [];
  readonly hiddenPresence: Array<{ id: number; email: string; entitled: (v: Viewer) => boolean }> = [];
  readonly channels = {} as Record<ChannelVis, VisObjects>;
  dm!: DmObjects;
  groupId = 0;
  readonly queues = new Map<QueueCaller, { id: string; last: number }>();
  private fresh = 0;

  constructor(
    readonly server: TestServer,
    readonly realm: TestRealm,
    readonly cast: OneOfEachRole,
    readonly foreign: TestRealm,
    readonly insider: TestUser,
    readonly hermit: TestUser,
    readonly gone: TestUser,
    readonly fixtureBot: TestUser,
    readonly insiderQueue: string,
  ) {}

  /** The user behind a caller with a working key (null for those refused at the door). */
  userOf(c: Caller): TestUser | null {
    if (c === 'otherOrgHome') return this.foreign.owner;
    if (c === 'deactivated') return this.gone;
    return c in this.cast ? this.cast[c as keyof OneOfEachRole] : null;
  }

  request(c: Caller, method: string, path: string, params: Params, o: RequestOptions): Promise<TestResponse> {
    const here = { ...o, host: this.realm.host };
    switch (c) {
      case 'anonymous':
        return this.server.request(method, path, params, { ...here, auth: null });
      case 'wrongKey':
        return this.server.request(method, path, params, { ...here, auth: basic(this.cast.member.email, 'x'.repeat(32)) });
      case 'otherOrg':
        return this.server.request(method, path, params, { ...here, auth: this.foreign.owner.auth });
      case 'otherOrgHome':
        return this.foreign.owner.request(method, path, params, o);
      default:
        return this.userOf(c)!.request(method, path, params, o);
    }
  }

  addMarker(vis: Vis, level: Level, what: string, text: string): string {
    this.markers.push(marker(vis, level, what, text));
    return text;
  }

  addMessage(vis: MessageVis, level: Level, id: number, what: string): void {
    this.ids.push({ kind: 'message', id, what: `${vis} ${what}`, entitled: marker(vis, level, '', '').entitled });
  }

  /** A new message in a visibility, for probes that change or delete what they target. */
  async freshMessage(vis: MessageVis): Promise<number> {
    const n = ++this.fresh;
    if (vis === 'archived') return this.channels.archived.messageId;
    const content = this.addMarker(vis, 'late', 'fresh message', `zq${vis}fresh${n}x`);
    let id: number;
    if (vis === 'dm') {
      id = assertSuccess(await this.insider.post(`${API}/messages`, { type: 'direct', to: [this.hermit.id], content })).id;
    } else {
      // Its own topic: the late subscriber of the protected channel may see it, not the first one.
      const topic = `zq${vis}freshtopic`;
      if (!this.markers.some((m) => m.text === topic)) this.addMarker(vis, 'late', 'fresh topic', topic);
      const to = String(this.channels[vis].channelId);
      id = assertSuccess(await this.insider.post(`${API}/messages`, { type: 'stream', to, topic, content })).id;
    }
    this.addMessage(vis, 'late', id, 'fresh message');
    return id;
  }

  /** Every event a caller's queue holds since the last drain. */
  async drain(c: QueueCaller): Promise<unknown[]> {
    const q = this.queues.get(c);
    const u = this.userOf(c);
    if (!q || !u) return [];
    const events = await drainEvents(u, q.id, q.last);
    if (events.length > 0) q.last = events.at(-1)!.id as number;
    return events;
  }

  /** (Re)register a caller's event queue: every event type, every public channel it may have. */
  async registerQueue(c: QueueCaller): Promise<void> {
    const u = this.userOf(c)!;
    const params: Params = { fetch_event_types: [], all_public_streams: c !== 'guest' };
    const r = assertSuccess(await u.post(`${API}/register`, params));
    this.queues.set(c, { id: r.queue_id as string, last: -1 });
  }
}

async function upload(u: TestUser, filename: string): Promise<Upload> {
  const m = multipart({}, { file: { filename, data: Buffer.from(`contents of ${filename}`) } });
  const r = assertSuccess(await u.post(`${API}/user_uploads`, {}, { body: m.body, contentType: m.contentType }));
  const list = assertSuccess(await u.get(`${API}/attachments`)).attachments as Array<{ id: number; path_id: string }>;
  const a = list.find((x) => r.url.endsWith(x.path_id))!;
  return { url: r.url as string, apiUrl: `${API}${r.url as string}`, attachmentId: a.id };
}

/** Send, edit (so there is an edit history) and react to one message carrying a visibility's markers. */
async function seedMessage(fx: Fixture, vis: MessageVis, send: (content: string) => Promise<number>, file: Upload): Promise<number> {
  const original = fx.addMarker(vis, 'content', 'message content', `zq${vis}msg`);
  const edited = fx.addMarker(vis, 'content', 'edited content', `zq${vis}edit`);
  const id = await send(`${original} see [file](${file.url})`);
  assertSuccess(await fx.insider.patch(`${API}/messages/${id}`, { content: `${edited} see [file](${file.url})` }));
  assertSuccess(await fx.insider.post(`${API}/messages/${id}/reactions`, { emoji_name: 'eyes' }));
  fx.addMessage(vis, 'content', id, 'message');
  return id;
}

export async function startFixture(): Promise<Fixture> {
  const server = await startTestServer({ env: { CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE: 'true' } });
  const realm = await server.createRealm({ name: 'Matrix' });
  const foreign = await server.createRealm({ name: 'Elsewhere' });
  await realm.updateSettings({ enable_spectator_access: true });
  const cast = await oneOfEachRole(realm, { botOwner: 'owner' });
  const insider = await realm.createUser({ name: 'Ian Insider' });
  const hermit = await realm.createUser({ name: 'Hermit zqhiddenname', email: 'zqhiddenmail@example.com' });
  const gone = await realm.createUser({ name: 'Gone Insider' });
  const fixtureBot = await realm.createUser({ bot: true, name: 'Fixture Bot', botOwnerId: insider.id });
  await realm.setGroupSetting('can_access_all_users_group', SystemGroup.members);
  const insiderQueue = assertSuccess(await insider.post(`${API}/register`, { fetch_event_types: [] })).queue_id as string;

  const fx = new Fixture(server, realm, cast, foreign, insider, hermit, gone, fixtureBot, insiderQueue);
  fx.addMarker('hiddenUser', 'meta', 'name', 'zqhiddenname');
  fx.addMarker('hiddenUser', 'meta', 'email', 'zqhiddenmail');
  fx.hiddenPresence.push({ id: hermit.id, email: hermit.email, entitled: marker('hiddenUser', 'meta', '', '').entitled });
  for (const [u, who] of [[insider, 'insider'], [hermit, 'hermit'], [gone, 'deactivated user'], [fixtureBot, 'fixture bot']] as const) {
    const mayKnow = new Set<Viewer>(who === 'fixture bot' ? ['owner', 'admin'] : []);
    fx.markers.push({ text: u.apiKey.toLowerCase(), what: `API key of the ${who}`, vis: 'credentials', entitled: (v) => mayKnow.has(v) });
  }
  for (const c of ['guest', 'member', 'moderator', 'admin', 'owner', 'bot', 'otherOrgHome'] as const) await fx.registerQueue(c);

  // The hidden user: present, with a status and a profile value, sharing nothing with the guest.
  assertSuccess(await hermit.post(`${API}/users/me/presence`, { status: 'active' }));
  assertSuccess(await hermit.post(`${API}/users/me/status`, { status_text: fx.addMarker('hiddenUser', 'meta', 'status', 'zqhiddenstatus') }));
  const field = assertSuccess(await realm.owner.post(`${API}/realm/profile_fields`, { name: 'Motto', field_type: 1 })).id as number;
  assertSuccess(await hermit.patch(`${API}/users/me/profile_data`, { data: [{ id: field, value: fx.addMarker('hiddenUser', 'meta', 'profile value', 'zqhiddenprofile') }] }));

  const options: Record<ChannelVis, Params> = {
    public: {},
    protected: { invite_only: true, history_public_to_subscribers: false },
    shared: { invite_only: true, history_public_to_subscribers: true },
    webPublic: { is_web_public: true },
    archived: { invite_only: true, history_public_to_subscribers: true },
  };
  for (const vis of CHANNEL_VIS) {
    const name = fx.addMarker(vis, 'meta', 'channel name', `zq${vis}name`);
    const description = fx.addMarker(vis, 'meta', 'channel description', `zq${vis}desc`);
    const topic = fx.addMarker(vis, 'content', 'topic', `zq${vis}topic`);
    const others = vis === 'archived' ? [gone, cast.member] : vis === 'public' ? [gone, hermit] : [gone];
    // The organization's owner alone may create web-public channels here.
    const creator = vis === 'webPublic' ? realm.owner : insider;
    const channelId = await createChannel(creator, name, { description, ...options[vis], others: creator === insider ? others : [insider, ...others] });
    fx.ids.push({ kind: 'channel', id: channelId, what: `${vis} channel`, entitled: marker(vis, 'meta', '', '').entitled });
    const file = await upload(insider, fx.addMarker(vis, 'content', 'upload name', `zq${vis}file`) + '.txt');
    const send = async (content: string) =>
      assertSuccess(await insider.post(`${API}/messages`, { type: 'stream', to: String(channelId), topic, content })).id as number;
    const messageId = await seedMessage(fx, vis, send, file);
    fx.channels[vis] = { channelId, channelName: name, description, topic, messageId, upload: file };
  }
  // Two more messages from before the late subscription, moved and deleted after it.
  const before = async (topic: string, content: string) =>
    assertSuccess(await insider.post(`${API}/messages`, { type: 'stream', to: String(fx.channels.protected.channelId), topic: fx.addMarker('protected', 'content', 'topic', topic), content: fx.addMarker('protected', 'content', 'message content', content) })).id as number;
  const toMove = await before('zqprotectedoldtopic', 'zqprotectedtomove');
  const toDelete = await before('zqprotecteddeltopic', 'zqprotectedtodelete');
  fx.addMessage('protected', 'content', toMove, 'message moved later');
  fx.addMessage('protected', 'content', toDelete, 'message deleted later');
  // Late subscribers: they see the channel, and (shared history) its past or (protected) only what follows.
  assertSuccess(await insider.post(`${API}/users/me/subscriptions`, { subscriptions: [{ name: fx.channels.protected.channelName }], principals: [cast.member.id] }));
  assertSuccess(await insider.post(`${API}/users/me/subscriptions`, { subscriptions: [{ name: fx.channels.shared.channelName }], principals: [cast.guest.id] }));
  assertSuccess(await insider.delete(`${API}/streams/${fx.channels.archived.channelId}`));
  // Activity on a message from before the late subscriber joined: news only to those who had it.
  const old = fx.channels.protected;
  const again = fx.addMarker('protected', 'content', 'content edited after the late subscription', 'zqprotectedreedit');
  assertSuccess(await insider.patch(`${API}/messages/${old.messageId}`, { content: `${again} see [file](${old.upload.url})` }));
  assertSuccess(await insider.post(`${API}/messages/${old.messageId}/reactions`, { emoji_name: 'heart' }));
  assertSuccess(await insider.post(`${API}/messages/${old.messageId}/typing`, { op: 'start' }));
  assertSuccess(await insider.post(`${API}/messages/flags`, { messages: [old.messageId], op: 'add', flag: 'starred' }));
  const newTopic = fx.addMarker('protected', 'content', 'topic moved to', 'zqprotectednewtopic');
  assertSuccess(await insider.patch(`${API}/messages/${toMove}`, { topic: newTopic, propagate_mode: 'change_all', send_notification_to_new_thread: false }));
  assertSuccess(await insider.delete(`${API}/messages/${toDelete}`));

  const dmFile = await upload(insider, fx.addMarker('dm', 'content', 'upload name', 'zqdmfile') + '.txt');
  const dmSend = async (content: string) => assertSuccess(await insider.post(`${API}/messages`, { type: 'direct', to: [hermit.id], content })).id as number;
  const messageId = await seedMessage(fx, 'dm', dmSend, dmFile);
  const groupContent = fx.addMarker('dm', 'content', 'group message', 'zqdmgroup');
  const groupMessageId = assertSuccess(await insider.post(`${API}/messages`, { type: 'direct', to: [hermit.id, gone.id], content: groupContent })).id as number;
  fx.addMessage('dm', 'content', groupMessageId, 'group message');
  fx.dm = { messageId, groupMessageId, upload: dmFile };

  await realm.handle.ask('user.setActive', { userId: gone.id, active: false, actorId: null });
  return fx;
}
