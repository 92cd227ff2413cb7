// A fresh database and data directory per scenario, seeded in-process through the management
// commands (bulk `user seed`) and the store, before Parley starts on it: thousands of accounts in
// seconds instead of thousands of HTTP calls.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CREATION } from '../src/actors/realm/subscriptions.js';
import { createApp, type App } from '../src/app.js';
import { runAdminCommand } from '../src/cli/commands.js';
import { parseConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { activateSubscriptions } from '../src/store/channels.js';
import { admin, urlWithDatabase } from '../test/helpers/database.js';
import { basic } from '../test/helpers/server.js';

export interface Account {
  readonly id: number;
  readonly email: string;
  /** The Authorization header value. */
  readonly auth: string;
}

export interface Seeded {
  readonly owner: Account;
  /** Seeded members, in id order. */
  readonly users: readonly Account[];
  /** Channel name → id. */
  readonly channels: Readonly<Record<string, number>>;
}

export interface SeedPlan {
  readonly users: number;
  /** Channels and how many of the first seeded users subscribe to each. */
  readonly channels: ReadonlyArray<{ readonly name: string; readonly subscribers: number }>;
}

/** Where one scenario's Parley keeps its data: a temp DATA_DIR and its own database. */
export class Workspace {
  private constructor(
    readonly dataDir: string,
    /** A fresh database on the given Postgres server; undefined: embedded PGlite in dataDir. */
    readonly databaseUrl: string | undefined,
    private readonly serverUrl: string | undefined,
    private readonly dbName: string | undefined,
  ) {}

  static async create(serverUrl: string | undefined): Promise<Workspace> {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-'));
    if (!serverUrl) return new Workspace(dataDir, undefined, undefined, undefined);
    const name = `parley_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
    await admin(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
    return new Workspace(dataDir, urlWithDatabase(serverUrl, name), serverUrl, name);
  }

  /** Open the application in this process (Parley not running), run f, close it. */
  async withApp<T>(f: (app: App) => Promise<T>): Promise<T> {
    const config = parseConfig({ DATA_DIR: this.dataDir, LOG_LEVEL: 'warn', ...(this.databaseUrl ? { DATABASE_URL: this.databaseUrl } : {}) });
    const app = await createApp({ config, log: createLogger('warn', 'parley-bench') });
    try {
      return await f(app);
    } finally {
      await app.close();
    }
  }

  /** One organization, its owner, `plan.users` members and the planned channels. */
  seed(plan: SeedPlan): Promise<Seeded> {
    return this.withApp(async (app) => {
      const made = (await runAdminCommand(app, {
        command: 'realm.create',
        name: 'Bench',
        host: 'bench.localhost',
        ownerEmail: 'owner@bench.localhost',
        ownerName: 'Bench Owner',
      })) as { owner: { user_id: number; email: string; api_key: string } };
      const account = (u: { user_id: number; email: string; api_key: string }): Account => ({ id: u.user_id, email: u.email, auth: basic(u.email, u.api_key) });
      const owner = account(made.owner);
      const users =
        plan.users === 0
          ? []
          : ((await runAdminCommand(app, { command: 'user.seed', count: plan.users, prefix: 'member' })) as { users: Array<{ user_id: number; email: string; api_key: string }> }).users.map(account);
      const realm = await app.realms.only()!;
      const channels: Record<string, number> = {};
      for (const c of plan.channels) {
        if (c.subscribers < 1 || c.subscribers > users.length) throw new Error(`channel ${c.name}: ${c.subscribers} subscribers of ${users.length} users`);
        await realm.ask('subscription.subscribe', {
          actorId: owner.id,
          channels: [{ name: c.name }],
          principals: [users[0]!.id],
          authorizationErrorsFatal: true,
          creation: DEFAULT_CREATION,
        });
        const id = realm.state.channels.byName(c.name)!.id;
        // The other subscribers in one statement (the server is not running: it loads them at start).
        await activateSubscriptions(
          app.db,
          id,
          users.slice(1, c.subscribers).map((u) => ({ userId: u.id, color: '#76ce90' })),
        );
        channels[c.name] = id;
      }
      return { owner, users, channels };
    });
  }

  /** Remove the data directory and the database (runScenarios does, after the scenario); once more does nothing. */
  async dispose(): Promise<void> {
    rmSync(this.dataDir, { recursive: true, force: true });
    if (this.serverUrl && this.dbName) {
      const name = this.dbName;
      await admin(this.serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  }
}
