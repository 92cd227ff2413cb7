// A private Postgres cluster for tests that stop and start the database (outages): initdb into a
// temporary directory, its own port on 127.0.0.1, run as user postgres when the tests run as
// root. The shared server on 5432 is never touched.
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './process.js';

const run = promisify(execFile);

/** The bin directory of the newest Postgres under /usr/lib/postgresql (or PG_BIN), if any. */
export function findPostgresBin(): string | null {
  const candidates = process.env.PG_BIN
    ? [process.env.PG_BIN]
    : (existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql') : [])
        .filter((v) => /^\d+(\.\d+)?$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => join('/usr/lib/postgresql', v, 'bin'));
  return candidates.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl'))) ?? null;
}

export interface PrivateCluster {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  readonly url: string;
  /** `pg_ctl stop`: `fast` ends sessions cleanly, `immediate` is a crash of the server. */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  /** `pg_ctl start`; resolves once the server accepts connections. */
  start(): Promise<void>;
  /** Stop (if running) and delete the cluster. */
  destroy(): Promise<void>;
}

export async function createPrivateCluster(bin: string): Promise<PrivateCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-pg-'));
  const data = join(dir, 'data');
  // Postgres refuses to run as root: as root, every command runs as user postgres.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    chownSync(dir, Number(uid.stdout.trim()), Number(gid.stdout.trim()));
  }
  const exec = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args);
  const port = await freePort();
  await exec('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c fsync=off', // the machine does not crash in these tests, only the server
    '-c shared_buffers=16MB',
    '-c max_connections=40',
  ].join(' ');
  let running = false;
  const cluster: PrivateCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await exec('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
      running = true;
    },
    async stop(mode) {
      await exec('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      running = false;
    },
    async destroy() {
      if (running) await cluster.stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}
