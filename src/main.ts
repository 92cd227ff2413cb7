// Wiring only: config → store → actors → HTTP, and a graceful shutdown on SIGTERM/SIGINT. The
// bundle's entry: launch.ts (dist/parley.mjs) runs main().
import { createApp } from './app.js';
import { bootstrapIfEmpty, describeBootstrap } from './bootstrap.js';
import { startAdminSocket } from './cli/admin-socket.js';
import { ConfigError, parseConfig } from './config.js';
import { createDispatcher } from './http/dispatch.js';
import { apiRoutes, siteRoutes } from './http/routes.js';
import { eventsSocketRoute, EVENTS_SOCKET_PATH } from './http/socket.js';
import { startHttpServer } from './http/uws.js';
import { createLogger } from './log.js';
import { acquireLock } from './process-lock.js';
import { StartupClock } from './startup.js';

/** Start the server; resolves once it serves. */
export async function main(): Promise<void> {
  const startup = new StartupClock();
  startup.end('load');
  let config;
  try {
    config = parseConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const log = createLogger(config.logLevel);
  const release = acquireLock(config.dataDir);
  const app = await createApp({ config, log, startup });
  const first = await bootstrapIfEmpty(app);
  if (first) process.stdout.write(describeBootstrap(first) + '\n');

  const dispatch = createDispatcher(app, { api: apiRoutes, site: siteRoutes });
  const http = await startHttpServer({
    host: config.host,
    port: config.port,
    maxBodyBytes: config.http.maxBodyBytes,
    bodyTimeoutMs: config.http.bodyTimeoutMs,
    log,
    dispatch,
    sockets: { [EVENTS_SOCKET_PATH]: eventsSocketRoute(app) },
  });
  const admin = await startAdminSocket(app, config.dataDir, log);
  startup.end('listen');
  app.metrics.started(startup.phases());
  log.info({ url: `http://${config.host}:${http.port}`, database: app.dbKind, dataDir: config.dataDir, startupMs: startup }, 'Parley is serving');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      log.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    // No new connections, and new requests on open ones are refused (503, then closed).
    http.stopListening();
    admin?.close();
    // Parked polls are answered and sockets closed (1001), cursors saved; requests already
    // running finish while actors and the database still serve them.
    let code = 0;
    try {
      await app.stopQueues();
      await http.settled(config.shutdownTimeoutMs / 2);
      await app.close();
    } catch (err) {
      log.error({ err }, 'stop failed');
      code = 1;
    }
    http.closeAll();
    release();
    log.info('stopped');
    process.exit(code);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
