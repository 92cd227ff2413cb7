// Versioned SQL migrations: src/store/migrations/NNN_name.sql, applied in order at start, each in
// its own transaction, under an advisory lock so that concurrent starters apply them once. An
// applied migration whose file changed afterwards stops the start: history is append-only.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { migrationsDir } from '../paths.js';
import { splitStatements } from './sql-split.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  readonly checksum: string;
}

const fileName = /^(\d{3})_([a-z0-9_]+)\.sql$/;
const MIGRATION_LOCK = 7_301_733; // any constant shared by all Parley processes

export function loadMigrations(dir = migrationsDir): Migration[] {
  const migrations = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => {
      const m = fileName.exec(f);
      if (!m) throw new Error(`Migration file name must look like 001_name.sql: ${f}`);
      const text = readFileSync(join(dir, f), 'utf8');
      return {
        version: Number(m[1]),
        name: m[2]!,
        sql: text,
        checksum: createHash('sha256').update(text).digest('hex'),
      };
    })
    .sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (i > 0 && migrations[i - 1]!.version === m.version) {
      throw new Error(`Two migrations share version ${m.version}`);
    }
  });
  return migrations;
}

const appliedRow = z.object({ version: z.number(), name: z.string(), checksum: z.string() });

export interface MigrationResult {
  readonly applied: number[];
  readonly current: number;
}

export async function migrate(pool: DatabasePool, migrations = loadMigrations()): Promise<MigrationResult> {
  return pool.connect(async (conn) => {
    await conn.query(sql.unsafe`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      await conn.query(sql.unsafe`
        CREATE TABLE IF NOT EXISTS schema_migrations (
          version integer PRIMARY KEY,
          name text NOT NULL,
          checksum text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`);
      const rows = await conn.any(sql.type(appliedRow)`SELECT version, name, checksum FROM schema_migrations`);
      const done = new Map(rows.map((r) => [r.version, r]));
      const known = new Set(migrations.map((m) => m.version));
      for (const r of rows) {
        if (!known.has(r.version)) {
          throw new Error(`Database has migration ${r.version}_${r.name}, which this version of Parley does not know`);
        }
      }
      const applied: number[] = [];
      for (const m of migrations) {
        const prior = done.get(m.version);
        if (prior) {
          if (prior.checksum !== m.checksum) {
            throw new Error(`Migration ${m.version}_${m.name} was changed after it was applied`);
          }
          continue;
        }
        await conn.transaction(async (tx) => {
          for (const statement of splitStatements(m.sql)) await tx.query(sql.unsafe(templateOf(statement)));
          await tx.query(sql.unsafe`
            INSERT INTO schema_migrations (version, name, checksum) VALUES (${m.version}, ${m.name}, ${m.checksum})`);
        });
        applied.push(m.version);
      }
      return { applied, current: migrations.at(-1)?.version ?? 0 };
    } finally {
      await conn.query(sql.unsafe`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  });
}

/** A statement of a migration file, run as written (no bound values). */
function templateOf(text: string): TemplateStringsArray {
  return Object.freeze(Object.assign([text], { raw: Object.freeze([text]) }));
}

/** The newest applied version, or 0 (health check). */
export async function currentVersion(pool: DatabasePool): Promise<number> {
  const exists = await pool.oneFirst(
    sql.type(z.object({ exists: z.boolean() }))`SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`,
  );
  if (!exists) return 0;
  return pool.oneFirst(sql.type(z.object({ v: z.number() }))`SELECT coalesce(max(version), 0)::int AS v FROM schema_migrations`);
}
