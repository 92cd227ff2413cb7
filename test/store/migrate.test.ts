// Migrations: applied in order on an empty database, idempotent on re-run, and refusing a
// history that was edited or that this version does not know.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { currentVersion, loadMigrations, migrate } from '../../src/store/migrate.js';
import { splitStatements } from '../../src/store/sql-split.js';
import { openEmptyDatabase, type TestDatabase } from '../helpers/database.js';
import { tempDir } from '../helpers/temp-dir.js';

const split = suite('statement splitter');

split('splits at top-level semicolons only', () => {
  const text = `-- a comment; with a semicolon
CREATE TABLE a (x text DEFAULT 'semi;colon', "we;ird" int);
/* block; comment */ INSERT INTO a VALUES ('it''s; fine', 1);
CREATE FUNCTION f() RETURNS int AS $body$ BEGIN RETURN 1; END; $body$ LANGUAGE plpgsql;
DO $$ BEGIN PERFORM 1; END $$;
-- trailing comment only`;
  const s = splitStatements(text);
  assert.is(s.length, 4);
  assert.match(s[0]!, /^-- a comment; with a semicolon\nCREATE TABLE a/);
  assert.match(s[1]!, /it''s; fine/);
  assert.match(s[2]!, /RETURN 1; END; \$body\$ LANGUAGE plpgsql$/);
  assert.is(s[3], 'DO $$ BEGIN PERFORM 1; END $$');
});

split('unterminated quotes are errors', () => {
  assert.throws(() => splitStatements("SELECT 'abc"), /Unterminated quoted string/);
  assert.throws(() => splitStatements('SELECT $x$ abc'), /Unterminated \$x\$ quote/);
  assert.throws(() => splitStatements('SELECT /* abc'), /Unterminated block comment/);
});

const files = suite('migration files');

files('the shipped migrations are numbered and unique', () => {
  const ms = loadMigrations();
  assert.ok(ms.length >= 1);
  assert.is(ms[0]!.version, 1);
  ms.forEach((m, i) => i > 0 && assert.ok(m.version > ms[i - 1]!.version));
});

files('bad file names and duplicate versions are refused', () => {
  const dir = tempDir('parley-mig-');
  writeFileSync(join(dir, '001_a.sql'), 'SELECT 1;');
  writeFileSync(join(dir, '001_b.sql'), 'SELECT 2;');
  assert.throws(() => loadMigrations(dir), /Two migrations share version 1/);
  const dir2 = tempDir('parley-mig-');
  writeFileSync(join(dir2, 'create_things.sql'), 'SELECT 1;');
  assert.throws(() => loadMigrations(dir2), /must look like 001_name\.sql/);
});

let db: TestDatabase;
const run = suite('applying migrations');
run.before(async () => {
  db = await openEmptyDatabase();
});
run.after(() => db.close());

run('an empty database gets every migration, and the schema is usable', async () => {
  assert.is(await currentVersion(db.pool), 0);
  const all = loadMigrations();
  const r = await migrate(db.pool);
  assert.equal(r.applied, all.map((m) => m.version));
  assert.is(await currentVersion(db.pool), all.at(-1)!.version);
  const tables = await db.pool.anyFirst(sql.type(z.object({ t: z.string() }))`
    SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`);
  for (const t of ['realms', 'users', 'channels', 'subscriptions', 'messages', 'user_messages', 'reactions',
    'message_edits', 'attachments', 'user_groups', 'channel_folders', 'custom_profile_fields', 'user_presence',
    'push_devices', 'invitations', 'realm_domains', 'user_topics', 'events', 'event_queues']) {
    assert.ok(tables.includes(t), `missing table ${t}`);
  }
});

run('re-running applies nothing and changes nothing', async () => {
  const before = await db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM schema_migrations`);
  const r = await migrate(db.pool);
  assert.equal(r.applied, []);
  const after = await db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM schema_migrations`);
  assert.is(after, before);
});

run('an applied migration whose file changed stops the start', async () => {
  const edited = loadMigrations().map((m, i) => (i === 0 ? { ...m, checksum: 'different' } : m));
  try {
    await migrate(db.pool, edited);
    assert.unreachable('should refuse');
  } catch (e) {
    assert.match((e as Error).message, /Migration 1_initial was changed after it was applied/);
  }
});

run('a database newer than this version is refused', async () => {
  const known = loadMigrations();
  try {
    await migrate(db.pool, known.slice(0, -1).length > 0 ? known.slice(0, -1) : []);
    assert.unreachable('should refuse');
  } catch (e) {
    assert.match((e as Error).message, /which this version of Parley does not know/);
  }
});

split.run();
files.run();
run.run();
