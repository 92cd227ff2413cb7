// The running server's admin socket (DATA_DIR/parley.sock, mode 0600): the CLI sends one JSON
// command per line and gets one JSON reply per line. Only local users who can read DATA_DIR can
// connect, which is the same trust as reading the database files.
import { chmodSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { App } from '../app.js';
import { isApiError } from '../domain/errors.js';
import { runAdminCommand, type AdminCommand, type AdminResult } from './commands.js';

export const adminSocketPath = (dataDir: string) => join(dataDir, 'parley.sock');

type Wire = { ok: true; result: AdminResult } | { ok: false; error: string };

/** Listen on the admin socket; call with the DATA_DIR lock held (any existing file is stale). */
export async function startAdminSocket(app: App, dataDir: string, log: Logger): Promise<Server | null> {
  const path = adminSocketPath(dataDir);
  if (Buffer.byteLength(path) > 100) {
    log.warn({ path }, 'DATA_DIR path too long for the admin socket; the CLI needs the server stopped');
    return null;
  }
  rmSync(path, { force: true });
  const server = createServer((conn) => {
    let buffer = '';
    conn.setEncoding('utf8');
    conn.on('data', (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl < 0) {
        if (buffer.length > 1_000_000) conn.destroy();
        return;
      }
      const line = buffer.slice(0, nl);
      buffer = '';
      void answer(app, line).then((wire) => conn.end(JSON.stringify(wire) + '\n'));
    });
    conn.on('error', () => conn.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return server;
}

async function answer(app: App, line: string): Promise<Wire> {
  try {
    return { ok: true, result: await runAdminCommand(app, JSON.parse(line) as AdminCommand) };
  } catch (e) {
    if (isApiError(e)) return { ok: false, error: e.message };
    app.log.error({ err: e }, 'admin command failed');
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/** Send a command to a running server; null when no server listens there. */
export function callAdminSocket(dataDir: string, cmd: AdminCommand): Promise<Wire | null> {
  return new Promise((resolve, reject) => {
    const conn = connect(adminSocketPath(dataDir));
    let reply = '';
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.write(JSON.stringify(cmd) + '\n'));
    conn.on('data', (chunk: string) => (reply += chunk));
    conn.on('end', () => {
      try {
        resolve(JSON.parse(reply) as Wire);
      } catch {
        reject(new Error('The server closed the admin socket without an answer'));
      }
    });
    conn.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' || e.code === 'ECONNREFUSED') resolve(null);
      else reject(e);
    });
  });
}
