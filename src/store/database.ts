// Opening the database: a real Postgres when a URL is given, otherwise PGlite served on a
// loopback socket so that slonik talks to both through the same driver (DESIGN.md §4).
import { mkdirSync } from 'node:fs';
import type { Logger } from 'pino';
import {
  createPool,
  createTypeParserPreset,
  type DatabasePool,
  type Interceptor,
  type DriverTypeParser,
} from 'slonik';
import { givesBack } from '../domain/exact-check.js';
import { serveEmbedded } from './embedded-server.js';
import { parseIntArray } from './int-arrays.js';

export type { DatabasePool } from 'slonik';

// Connection-level failures: Postgres is down, restarting or unreachable. Clients get a 503
// and retry; they are not bugs.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P02', '57P03']);
const UNAVAILABLE_NAMES = new Set(['ConnectionError', 'BackendTerminatedError', 'BackendTerminatedUnexpectedlyError']);

/** Is this error the database being unavailable (as opposed to a bad query)? */
export function isDatabaseUnavailable(e: unknown): boolean {
  for (let cur = e, depth = 0; cur && typeof cur === 'object' && depth < 5; depth++) {
    const o = cur as { name?: string; code?: string; message?: string; cause?: unknown };
    if (o.name && UNAVAILABLE_NAMES.has(o.name)) return true;
    if (o.code && (UNAVAILABLE_CODES.has(o.code) || o.code.startsWith('08'))) return true;
    if (o.message && /Connection terminated|connection error|Client has encountered a connection error|timeout expired/i.test(o.message)) return true;
    cur = o.cause;
  }
  return false;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent PGlite is opened in dataDir (or from loadDataDir). */
  readonly url?: string | undefined;
  readonly dataDir?: string | undefined;
  /** A PGlite data-directory dump to start from (tests: a migrated template). */
  readonly loadDataDir?: Blob | undefined;
  readonly poolMax: number;
  readonly poolMin: number;
  readonly connectTimeoutMs: number;
  readonly statementTimeoutMs: number;
  readonly log: Logger;
  /** Called with the seconds each pool connection was waited for (metrics). */
  readonly onPoolWait?: ((seconds: number) => void) | undefined;
}

export interface Database {
  readonly pool: DatabasePool;
  readonly kind: 'postgres' | 'embedded';
  /** The most connections the pool opens: transactions that can run at once. */
  readonly connections: number;
  /** The URL slonik connects to (for the embedded database, its loopback socket). */
  readonly url: string;
  /** Embedded only: write the whole database as a tarball (test templates). */
  dump?(): Promise<Blob>;
  close(): Promise<void>;
}

/**
 * Rows are validated against the zod schema a query declares (slonik leaves that to
 * interceptors). A row that zod would give back unchanged is used as it is, without zod's copy.
 */
const resultParser: Interceptor = {
  name: 'parley.result-parser',
  transformRow(context, query, row) {
    const parser = context.resultParser;
    if (!parser) return row;
    if (givesBack(parser, row)) return row;
    const parsed = parser.safeParse(row);
    if (!parsed.success) {
      throw new Error(
        `Row does not match its schema (${parsed.error.issues
          .map((i) => `${i.path.join('.')}: ${i.message}`)
          .join('; ')}) for query: ${query.sql.slice(0, 200)}`,
      );
    }
    return parsed.data as typeof row;
  },
};

// Identifiers stay far below 2^53, so int8 is read as a JS number; timestamps as epoch ms.
// Integer arrays are split rather than walked (int-arrays.ts).
const typeParsers: DriverTypeParser[] = [
  ...createTypeParserPreset().map((p) => (p.name === 'int8' ? { name: 'int8', parse: (v: string) => Number.parseInt(v, 10) } : p)),
  { name: '_int4', parse: parseIntArray },
  { name: '_int8', parse: parseIntArray },
];

/** Pool waits, measured between slonik's before- and after-connection hooks (FIFO order). */
function poolWaitInterceptor(onWait: (seconds: number) => void): Interceptor {
  const started: bigint[] = [];
  return {
    name: 'parley.pool-wait',
    beforePoolConnection() {
      started.push(process.hrtime.bigint());
      return null;
    },
    afterPoolConnection() {
      const t = started.shift();
      if (t !== undefined) onWait(Number(process.hrtime.bigint() - t) / 1e9);
      return null;
    },
  };
}

function poolOptions(o: DatabaseOptions, max: number, min: number) {
  return {
    maximumPoolSize: max,
    minimumPoolSize: min,
    // The default DISCARD ALL after every query doubles the round trips of the hot paths.
    resetConnection: async () => {},
    idleTimeout: 60_000,
    connectionTimeout: o.connectTimeoutMs,
    statementTimeout: o.statementTimeoutMs,
    idleInTransactionSessionTimeout: Math.max(o.statementTimeoutMs, 60_000),
    captureStackTrace: false,
    interceptors: o.onPoolWait ? [resultParser, poolWaitInterceptor(o.onPoolWait)] : [resultParser],
    typeParsers,
    // Our transactions reserve event ids; a silent re-run would reserve them twice.
    transactionRetryLimit: 0,
    queryRetryLimit: 0,
  };
}

export async function openDatabase(o: DatabaseOptions): Promise<Database> {
  if (o.url) {
    const pool = await createPool(o.url, poolOptions(o, o.poolMax, o.poolMin));
    return { pool, kind: 'postgres', connections: o.poolMax, url: o.url, close: () => pool.end() };
  }
  return openEmbedded(o);
}

async function openEmbedded(o: DatabaseOptions): Promise<Database> {
  const { pg, url, close } = await startEmbedded(o);
  // PGlite is one session: more than one pooled connection would interleave transactions.
  // No minimum either: slonik replaces a destroyed connection (it destroys one whenever a pooled
  // callback throws) to keep its minimum, and a client that asks for a connection while that
  // replacement is being opened is queued and not handed the replacement when it is ready; it
  // waits for the next unrelated query to release one. Without a minimum, whoever needs the
  // connection opens it, and clients queued meanwhile get it on release.
  const pool = await createPool(url, poolOptions(o, 1, 0));
  o.log.debug({ url, dataDir: o.dataDir ?? null }, 'embedded database ready');
  return {
    pool,
    kind: 'embedded',
    connections: 1,
    url,
    dump: () => pg.dumpDataDir('none') as Promise<Blob>,
    async close() {
      await pool.end();
      await close();
    },
  };
}

/**
 * PGlite in `dataDir` (in memory without one; from a dump with `loadDataDir`), served on a
 * loopback socket: its URL, and how to stop both. Also the embedded database of benchmark R3.
 */
export async function startEmbedded(o: { readonly dataDir?: string | undefined; readonly loadDataDir?: Blob | undefined }) {
  // Imported lazily: a deployment on Postgres never loads the WASM build.
  const { PGlite } = await import('@electric-sql/pglite');
  if (o.dataDir) mkdirSync(o.dataDir, { recursive: true });
  const pg = await PGlite.create({
    ...(o.dataDir ? { dataDir: o.dataDir } : {}),
    ...(o.loadDataDir ? { loadDataDir: o.loadDataDir } : {}),
  });
  const server = await serveEmbedded(pg);
  return {
    pg,
    url: `postgres://postgres@${server.address}/postgres`,
    async close() {
      await server.close();
      await pg.close();
    },
  };
}
