// The application object: every service and the realm directory, built from a config. main.ts
// adds HTTP on top; tests and the CLI use it without sockets.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { IdAllocator } from './actors/event-sequencer.js';
import { RealmDirectory } from './actors/realm/directory.js';
import { startRuntime } from './actors/runtime.js';
import { ScheduledSends } from './actors/scheduled-sends.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { newServerSecret, secretFromBase64, type ServerSecret } from './domain/secrets.js';
import { SlidingWindowLimiter, TokenBucketLimiter } from './http/rate-limit.js';
import { SocketTickets } from './http/socket-tickets.js';
import type { Services } from './services.js';
import { isDatabaseUnavailable, openDatabase, type Database } from './store/database.js';
import { Metrics } from './metrics.js';
import { migrate } from './store/migrate.js';
import { creditDowntime, downtime, realmsWithQueues } from './store/queues.js';
import type { StartupClock } from './startup.js';

export interface App extends Services {
  readonly database: Database;
  readonly metrics: Metrics;
  readonly realms: RealmDirectory;
  readonly loginLimits: { readonly perUser: SlidingWindowLimiter; readonly perIp: SlidingWindowLimiter };
  /** Request rate per user (authenticated) and per address (anonymous); null when turned off. */
  readonly requestLimits: { readonly perUser: TokenBucketLimiter | null; readonly perIp: TokenBucketLimiter | null };
  readonly socketTickets: SocketTickets;
  /** Sends scheduled messages and reminders when they are due. */
  readonly scheduledSends: ScheduledSends;
  /** Answer parked polls, close event sockets (1001) and save every queue's cursor. */
  stopQueues(): Promise<void>;
  /** Stop queues (if not yet), then actors, and close the database (HTTP is closed by its owner first). */
  close(): Promise<void>;
}

export interface AppOptions {
  readonly config: Config;
  readonly log: Logger;
  readonly clock?: Clock;
  /** An already open database (tests); otherwise opened from the config. */
  readonly database?: Database;
  readonly secret?: ServerSecret;
  /** Told as each phase of a start ends (main.ts); none in tests and the CLI. */
  readonly startup?: StartupClock;
}

export async function createApp(o: AppOptions): Promise<App> {
  const { config, log } = o;
  const clock = o.clock ?? systemClock;
  let realmsForMetrics: RealmDirectory | null = null;
  const metrics = new Metrics(() => {
    const total = { queues: 0, parked: 0, sockets: 0 };
    for (const r of realmsForMetrics?.loadedNow() ?? []) {
      const c = r.queues.counts();
      total.queues += c.queues;
      total.parked += c.parked;
      total.sockets += c.sockets;
    }
    return total;
  });
  const database =
    o.database ??
    (await openDatabase({
      url: config.databaseUrl,
      dataDir: config.databaseUrl ? undefined : join(config.dataDir, 'pg'),
      poolMax: config.db.poolMax,
      poolMin: config.db.poolMin,
      connectTimeoutMs: config.db.connectTimeoutMs,
      statementTimeoutMs: config.db.statementTimeoutMs,
      log,
      onPoolWait: (s) => metrics.poolWait.observe(s),
    }));
  try {
    const migrated = await migrate(database.pool);
    if (migrated.applied.length > 0) log.info({ applied: migrated.applied }, 'migrations applied');
    o.startup?.end('database');
    const secret = o.secret ?? loadServerSecret(config);
    const runtime = startRuntime(log, config.actorAskTimeoutMs);
    const ids = new IdAllocator(database.pool);
    const floor = await ids.init();
    const services: Services = { config, db: database.pool, dbKind: database.kind, dbConnections: database.connections, log, clock, secret, runtime, ids, metrics };
    const realms = new RealmDirectory(services, floor);
    realmsForMetrics = realms;
    await realms.init();
    // Organizations with queues are loaded before serving, while the downtime is credited (read
    // first: their queue flushes mark the server alive); then their queues are restored from the log.
    const now = clock.now();
    const downMs = await downtime(database.pool, now);
    const [, withQueues] = await Promise.all([
      downMs > 0 ? creditDowntime(database.pool, downMs, now) : null,
      realmsWithQueues(database.pool).then((ids) => Promise.all(ids.map((id) => realms.get(id)))),
    ]);
    if (downMs > 0) log.info({ downMs }, 'event queues credited with the downtime');
    o.startup?.end('organizations');
    for (const realm of withQueues) {
      const restored = await realm.queues.restoreAll();
      if (restored > 0) log.info({ realm: realm.id, queues: restored }, 'event queues restored');
    }
    o.startup?.end('queues');
    const scheduledSends = new ScheduledSends({ db: database.pool, clock, log, realm: (id) => realms.get(id) });
    await scheduledSends.start();
    const windowMs = config.loginLimits.windowSeconds * 1000;
    const stopQueues = async () => {
      await Promise.all((await realms.loadedRealms()).map((r) => r.queues.shutdown()));
    };
    return {
      ...services,
      metrics,
      database,
      realms,
      requestLimits: {
        perUser: config.rateLimits.userPerMinute > 0 ? new TokenBucketLimiter(config.rateLimits.userPerMinute, 60_000, clock) : null,
        perIp: config.rateLimits.ipPerMinute > 0 ? new TokenBucketLimiter(config.rateLimits.ipPerMinute, 60_000, clock) : null,
      },
      scheduledSends,
      socketTickets: new SocketTickets(clock, config.queues.socketTicketTtlSecs * 1000),
      loginLimits: {
        perUser: new SlidingWindowLimiter(config.loginLimits.perUser, windowMs, clock),
        perIp: new SlidingWindowLimiter(config.loginLimits.perIp, windowMs, clock),
      },
      stopQueues,
      async close() {
        await scheduledSends.stop();
        // Parked polls are answered and cursors saved before the actors stop.
        await stopQueues();
        const loaded = await realms.loadedRealms();
        for (const r of loaded) {
          r.fullMembers.stop();
          r.retention.stop();
        }
        await Promise.all(loaded.map((r) => r.presence.shutdown()));
        runtime.stop();
        if (!o.database) {
          // A database that is already gone has nothing left to close.
          await database.close().catch((err: unknown) => {
            if (!isDatabaseUnavailable(err)) throw err;
            log.warn({ err: (err as Error).message }, 'database unreachable while closing');
          });
        }
      },
    };
  } catch (e) {
    if (!o.database) await database.close();
    throw e;
  }
}

/** SECRET_KEY, or DATA_DIR/secret.key (created on first start, mode 0600). */
export function loadServerSecret(config: Config): ServerSecret {
  if (config.secretKey) return secretFromBase64(config.secretKey);
  const file = join(config.dataDir, 'secret.key');
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, newServerSecret() + '\n', { mode: 0o600, flag: 'wx' });
  }
  return secretFromBase64(readFileSync(file, 'utf8').trim());
}
