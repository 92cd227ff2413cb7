// An in-process Parley for tests: the real App and dispatch() on a fresh database, with helpers
// to create organizations and users and to call the API as them (no sockets).
import { pino } from 'pino';
import { createApp, type App } from '../../src/app.js';
import type { RealmHandle } from '../../src/actors/realm/actor.js';
import { ManualClock, systemClock, type Clock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import type { RealmSettings } from '../../src/domain/realm-settings.js';
import { Role } from '../../src/domain/roles.js';
import type { SystemGroupName } from '../../src/domain/system-groups.js';
import { updateRealmSettings } from '../../src/store/realms.js';
import { hashPassword, newServerSecret, secretFromBase64 } from '../../src/domain/secrets.js';
import type { Hangup } from '../../src/hangup.js';
import { createDispatcher, Exchange, type ApiRequest, type ApiResponse, type Dispatch } from '../../src/http/dispatch.js';
import { apiRoutes, siteRoutes } from '../../src/http/routes.js';
import type { RouteTable } from '../../src/http/router.js';
import { openTestDatabase, type TestDatabase } from './database.js';
import { tempDir } from './temp-dir.js';

export type ParamValue = string | number | boolean | null | readonly unknown[] | Record<string, unknown>;
export type Params = Record<string, ParamValue | undefined>;

/** Encode like a client library: JSON for arrays/objects, `true`/`false` for booleans. */
export function encodeParams(params: Params): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    u.append(k, typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));
  }
  return u.toString();
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly json: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly text: string;
}

export function toTestResponse(r: ApiResponse): TestResponse {
  const text = typeof r.body === 'string' ? r.body : r.body.toString('utf8');
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON (files, pages)
  }
  return { status: r.status, headers: r.headers, json, text };
}

export interface RequestOptions {
  readonly host?: string;
  readonly auth?: string | null;
  readonly headers?: Record<string, string>;
  /** Raw body and content type instead of form-encoded params. */
  readonly body?: Buffer | string;
  readonly contentType?: string;
  /** Put parameters in the query string even for POST/PATCH/DELETE. */
  readonly inQuery?: boolean;
  readonly hangup?: Hangup;
}

/** An exchange whose answer goes to `onReply`: dispatch() without a transport. */
export class TestExchange extends Exchange {
  constructor(private readonly onReply: (res: ApiResponse) => void) {
    super();
  }

  reply(res: ApiResponse): void {
    this.onReply(res);
  }
}

export const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`;

export class TestServer {
  private realmCounter = 0;
  constructor(
    readonly app: App,
    /** The dispatcher itself (for an HTTP server in front of this one). */
    readonly dispatcher: Dispatch,
    readonly db: TestDatabase,
    readonly clock: Clock,
  ) {}

  /** The dispatcher's one answer, as a promise. The request's client hangs up when `hangup` fires. */
  dispatch(req: ApiRequest, hangup?: Hangup): Promise<ApiResponse> {
    return new Promise((resolve) => {
      const x = new TestExchange(resolve);
      if (hangup?.gone) x.fire();
      else hangup?.listen({ hungUp: () => x.fire() });
      this.dispatcher(req, x);
    });
  }

  async request(method: string, path: string, params: Params = {}, o: RequestOptions = {}): Promise<TestResponse> {
    const encoded = encodeParams(params);
    const inQuery = method === 'GET' || o.inQuery === true;
    const headers: Record<string, string> = { host: o.host ?? 'unknown.test', ...lower(o.headers ?? {}) };
    if (o.auth) headers.authorization = o.auth;
    let body: Buffer | null = null;
    if (o.body !== undefined) {
      body = Buffer.isBuffer(o.body) ? o.body : Buffer.from(o.body);
      headers['content-type'] = o.contentType ?? 'application/x-www-form-urlencoded';
    } else if (!inQuery && encoded.length > 0) {
      body = Buffer.from(encoded);
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const [p, q = ''] = path.split('?');
    const query = [q, inQuery ? encoded : ''].filter((s) => s.length > 0).join('&');
    const res = await this.dispatch({ method, path: p!, query, headers, body, remoteAddress: '127.0.0.1' }, o.hangup);
    return toTestResponse(res);
  }

  /** A new organization with its owner. */
  async createRealm(o: { name?: string } = {}): Promise<TestRealm> {
    const host = `r${++this.realmCounter}-${process.pid}.test`;
    const handle = await this.app.realms.create({ host, name: o.name ?? `Test ${this.realmCounter}` });
    const realm = new TestRealm(this, handle);
    realm.owner = await realm.createUser({ role: Role.owner, name: 'Olivia Owner' });
    return realm;
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.db.close();
  }
}

const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

export class TestRealm {
  owner!: TestUser;
  private userCounter = 0;
  constructor(
    readonly server: TestServer,
    readonly handle: RealmHandle,
  ) {}

  get host(): string {
    return this.handle.state.realm.host;
  }

  get id(): number {
    return this.handle.id;
  }

  async createUser(
    o: { role?: Role; name?: string; email?: string; bot?: boolean; botOwnerId?: number; password?: string } = {},
  ): Promise<TestUser> {
    const n = ++this.userCounter;
    const { user, apiKey } = await this.handle.ask('user.create', {
      email: o.email ?? (o.bot ? `bot${n}` : `user${n}@example.com`),
      fullName: o.name ?? `User ${n}`,
      role: o.role ?? Role.member,
      passwordHash: o.password === undefined ? null : await hashPassword(o.password),
      bot: o.bot ? { type: 1, ownerId: o.botOwnerId ?? null } : undefined,
    });
    return new TestUser(this, user.id, user.email, apiKey);
  }

  /** Change organization settings directly (for tests of other areas than PATCH /realm). */
  async updateSettings(patch: Partial<RealmSettings>): Promise<void> {
    await updateRealmSettings(this.server.app.db, this.id, { ...this.handle.state.realm.settings, ...patch });
    await this.handle.reload();
  }

  /** Point an organization-level group setting (e.g. can_create_bots_group) at a system group. */
  async setGroupSetting(setting: string, group: SystemGroupName): Promise<void> {
    const groups = { ...this.handle.state.realm.settings.groups, [setting]: this.handle.state.systemGroupId(group) };
    await this.updateSettings({ groups });
  }

  /** Call the API without credentials, at this organization's host. */
  anonymous(method: string, path: string, params: Params = {}, o: RequestOptions = {}): Promise<TestResponse> {
    return this.server.request(method, path, params, { ...o, host: this.host, auth: null });
  }
}

export class TestUser {
  constructor(
    readonly realm: TestRealm,
    readonly id: number,
    readonly email: string,
    readonly apiKey: string,
  ) {}

  get auth(): string {
    return basic(this.email, this.apiKey);
  }

  request(method: string, path: string, params: Params = {}, o: RequestOptions = {}): Promise<TestResponse> {
    return this.realm.server.request(method, path, params, { host: this.realm.host, auth: this.auth, ...o });
  }
  get(path: string, params: Params = {}, o: RequestOptions = {}) {
    return this.request('GET', path, params, o);
  }
  post(path: string, params: Params = {}, o: RequestOptions = {}) {
    return this.request('POST', path, params, o);
  }
  patch(path: string, params: Params = {}, o: RequestOptions = {}) {
    return this.request('PATCH', path, params, o);
  }
  delete(path: string, params: Params = {}, o: RequestOptions = {}) {
    return this.request('DELETE', path, params, o);
  }
}

export interface StartOptions {
  readonly env?: Record<string, string>;
  readonly clock?: ManualClock;
  /** Extra routes merged into the API table (tests of the HTTP core). */
  readonly extraApiRoutes?: RouteTable;
}

export async function startTestServer(o: StartOptions = {}): Promise<TestServer> {
  const db = await openTestDatabase();
  const config = parseConfig({
    DATA_DIR: tempDir('parley-test-'),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Tests drive many requests from one user and one address; the rate-limit tests turn them on.
    RATE_LIMIT_USER_PER_MINUTE: '0',
    RATE_LIMIT_IP_PER_MINUTE: '0',
    ...o.env,
  });
  const log = pino({ level: config.logLevel });
  const clock = o.clock ?? systemClock;
  const app = await createApp({ config, log, clock, database: db, secret: secretFromBase64(newServerSecret()) });
  const dispatch = createDispatcher(app, { api: { ...apiRoutes, ...o.extraApiRoutes }, site: siteRoutes });
  return new TestServer(app, dispatch, db, clock);
}
