// The set of organizations served by this process: Host → realm, lazily loaded realm actors,
// and organization creation. A server with a single organization serves it on any host.
import { errors } from '../../domain/errors.js';
import { REALM_GROUP_SETTING_DEFAULTS, realmSettingsSchema } from '../../domain/realm-settings.js';
import { createSystemGroups } from '../../store/groups.js';
import { insertRealm, listRealms, updateRealmSettings, type RealmRow } from '../../store/realms.js';
import { RecentlyUsed } from '../../recently-used.js';
import type { Services } from '../../services.js';
import { RealmEventStream } from '../realm-events.js';
import { RealmHandle } from './actor.js';
import { loadRealmState } from './state.js';

const HOST = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/;

/** Lower-case host[:port] without a trailing dot, or null when it is not a host name. */
export function normalizeHost(host: string | undefined): string | null {
  if (!host) return null;
  const h = host.trim().toLowerCase().replace(/\.(?=:|$)/, '');
  return HOST.test(h) ? h : null;
}

const stripPort = (h: string) => h.replace(/:\d+$/, '');

/** Host headers whose organization a directory remembers, at most. */
export const MAX_RESOLVED_HOSTS = 1000;
/** A longer header is not remembered (a host name has at most 253 characters, and a port 6). */
const MAX_REMEMBERED_HEADER = 260;

export interface NewRealm {
  readonly host: string;
  readonly url?: string | undefined;
  readonly name: string;
  readonly description?: string | undefined;
}

export class RealmDirectory {
  private readonly loaded = new Map<number, Promise<RealmHandle>>();
  /** The same realms once loaded, for synchronous walks (metrics). */
  private readonly ready = new Map<number, RealmHandle>();
  private readonly hosts = new Map<string, number>();
  /**
   * idForHost's answers by Host header as sent (null: no organization): normalizing a header and
   * matching it took about 0.2 µs of every request. Emptied when `hosts` changes. Clients choose
   * the headers: the headers in use are kept, up to MAX_RESOLVED_HOSTS, and none longer than a
   * host can be.
   */
  private readonly resolved = new RecentlyUsed<string | undefined, number | null>(MAX_RESOLVED_HOSTS / 2);
  private readonly loadHooks: Array<(realm: RealmHandle) => void> = [];

  constructor(
    private readonly services: Services,
    /** Event ids at or below this were handed out before this process started. */
    private readonly eventFloor: number,
  ) {}

  async init(): Promise<void> {
    for (const r of await listRealms(this.services.db)) this.hosts.set(r.host, r.id);
    this.resolved.clear();
  }

  /** Run for every realm when its actor starts (the event system attaches its queues). */
  onLoad(hook: (realm: RealmHandle) => void): void {
    this.loadHooks.push(hook);
  }

  get count(): number {
    return this.hosts.size;
  }

  /** How many Host headers' answers are remembered (at most MAX_RESOLVED_HOSTS). */
  get rememberedHosts(): number {
    return this.resolved.size;
  }

  /** The organization served at this Host header, if any. */
  resolve(hostHeader: string | undefined): Promise<RealmHandle> | null {
    const id = this.idForHost(hostHeader);
    return id === undefined ? null : this.get(id);
  }

  /** The organization at exactly this host (management commands: no single-realm fallback). */
  exact(host: string): Promise<RealmHandle> | null {
    const id = this.hosts.get(normalizeHost(host) ?? '');
    return id === undefined ? null : this.get(id);
  }

  /** The only organization, when there is exactly one. */
  only(): Promise<RealmHandle> | null {
    return this.hosts.size === 1 ? this.get(this.hosts.values().next().value!) : null;
  }

  private idForHost(hostHeader: string | undefined): number | undefined {
    const known = this.resolved.get(hostHeader);
    if (known !== undefined) return known ?? undefined;
    const id = this.matchHost(hostHeader);
    if (hostHeader === undefined || hostHeader.length <= MAX_REMEMBERED_HEADER) this.resolved.set(hostHeader, id ?? null);
    return id;
  }

  private matchHost(hostHeader: string | undefined): number | undefined {
    const host = normalizeHost(hostHeader);
    if (host) {
      const exact = this.hosts.get(host);
      if (exact !== undefined) return exact;
      const bare = stripPort(host);
      for (const [h, id] of this.hosts) if (stripPort(h) === bare) return id;
    }
    if (this.hosts.size === 1) return this.hosts.values().next().value;
    return undefined;
  }

  get(id: number): Promise<RealmHandle> {
    let p = this.loaded.get(id);
    if (!p) {
      p = this.load(id);
      this.loaded.set(id, p);
      p.catch(() => this.loaded.delete(id));
    }
    return p;
  }

  private async load(id: number): Promise<RealmHandle> {
    const state = await loadRealmState(this.services.db, id);
    const handle = new RealmHandle(this.services, state, new RealmEventStream(id, this.services.ids, this.eventFloor));
    for (const hook of this.loadHooks) hook(handle);
    this.ready.set(id, handle);
    return handle;
  }

  /** The organizations loaded so far. */
  loadedNow(): IterableIterator<RealmHandle> {
    return this.ready.values();
  }

  /** Every organization this process has loaded. */
  async loadedRealms(): Promise<RealmHandle[]> {
    const settled = await Promise.allSettled(this.loaded.values());
    return settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  }

  list(): Promise<readonly RealmRow[]> {
    return listRealms(this.services.db);
  }

  /** Create an organization with its system groups and default settings. */
  async create(input: NewRealm): Promise<RealmHandle> {
    const host = normalizeHost(input.host);
    if (!host) throw errors.badRequest(`Invalid host '${input.host}'`);
    if (this.hosts.has(host)) throw errors.badRequest(`An organization is already served at ${host}`);
    const name = input.name.trim();
    if (name.length === 0 || name.length > 40) throw errors.badRequest('Organization name must be 1 to 40 characters');
    const url = (input.url ?? defaultUrl(host)).replace(/\/+$/, '');
    const id = await this.services.db.transaction(async (tx) => {
      const realm = await insertRealm(tx, { host, url, name, description: input.description });
      const groups = await createSystemGroups(tx, realm.id);
      const settings = realmSettingsSchema.parse({});
      settings.groups = Object.fromEntries(
        Object.entries(REALM_GROUP_SETTING_DEFAULTS).map(([setting, group]) => [setting, groups.get(group)!]),
      );
      await updateRealmSettings(tx, realm.id, settings);
      return realm.id;
    });
    this.hosts.set(host, id);
    this.resolved.clear();
    return this.get(id);
  }
}

/** http for loopback and bare IP hosts, https otherwise. */
function defaultUrl(host: string): string {
  const bare = stripPort(host);
  const local = bare === 'localhost' || bare.endsWith('.localhost') || /^\d+\.\d+\.\d+\.\d+$/.test(bare);
  return `${local ? 'http' : 'https'}://${host}`;
}
