// A fresh, migrated database per test process: a Postgres database cloned from a migrated
// template (TEST_DATABASE_URL or DATABASE_URL), or an in-memory PGlite loaded from a migrated
// dump. test/run.ts prepares the template once per run; a test file run alone prepares its own.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { openDatabase, type Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';

const quiet = pino({ level: 'silent' });

export const serverUrl = (): string | undefined => process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || undefined;

export function urlWithDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function admin<T>(url: string, f: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end();
  }
}

const dbOptions = { poolMax: 4, poolMin: 0, connectTimeoutMs: 5000, statementTimeoutMs: 30000, log: quiet };

/** Create the migrated template; returns what child processes need (an env var to set). */
export async function prepareTemplate(): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  const url = serverUrl();
  if (url) {
    const name = `parley_tpl_${process.pid}_${randomBytes(3).toString('hex')}`;
    await admin(url, (c) => c.query(`CREATE DATABASE ${name}`));
    const db = await openDatabase({ ...dbOptions, url: urlWithDatabase(url, name) });
    await migrate(db.pool);
    await db.close();
    return {
      env: { PARLEY_TEST_TEMPLATE_DB: name },
      cleanup: () => admin(url, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
    };
  }
  const db = await openDatabase({ ...dbOptions });
  await migrate(db.pool);
  const dump = await db.dump!();
  await db.close();
  const file = join(tmpdir(), `parley-template-${process.pid}-${randomBytes(3).toString('hex')}.tar`);
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  return {
    env: { PARLEY_TEST_TEMPLATE_DUMP: file },
    cleanup: async () => {
      const { rmSync } = await import('node:fs');
      rmSync(file, { force: true });
    },
  };
}

let ownTemplate: Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> | null = null;

async function template(): Promise<Record<string, string>> {
  if (process.env.PARLEY_TEST_TEMPLATE_DB || process.env.PARLEY_TEST_TEMPLATE_DUMP) return process.env as Record<string, string>;
  ownTemplate ??= prepareTemplate();
  const t = await ownTemplate;
  // Dropped once the file's work is done: an 'exit' handler cannot wait for the DROP (it left
  // every template of a file run alone behind).
  process.once('beforeExit', () => void t.cleanup());
  return t.env;
}

export interface TestDatabase extends Database {
  /** Postgres only: the URL of this test's own database (for child processes). */
  readonly testUrl?: string;
}

/** A new Postgres database (optionally cloned from a template) that close() drops. */
async function createPostgresDatabase(url: string, prefix: string, template?: string): Promise<TestDatabase> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin(url, (c) => c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
  const testUrl = urlWithDatabase(url, name);
  const db = await openDatabase({ ...dbOptions, url: testUrl });
  return {
    ...db,
    testUrl,
    async close() {
      await db.close().catch(() => undefined); // the pool may have been ended by the test
      await admin(url, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** A new database without any migration applied (tests of the migration runner). */
export async function openEmptyDatabase(): Promise<TestDatabase> {
  const url = serverUrl();
  return url ? createPostgresDatabase(url, 'parley_e') : openDatabase({ ...dbOptions });
}

/** A new migrated database for this test file; close() drops it. */
export async function openTestDatabase(): Promise<TestDatabase> {
  const env = await template();
  const url = serverUrl();
  if (url && env.PARLEY_TEST_TEMPLATE_DB) return createPostgresDatabase(url, 'parley_t', env.PARLEY_TEST_TEMPLATE_DB);
  const file = env.PARLEY_TEST_TEMPLATE_DUMP!;
  if (!existsSync(file)) throw new Error(`Template dump ${file} is missing`);
  return openDatabase({ ...dbOptions, loadDataDir: new Blob([readFileSync(file)]) });
}
