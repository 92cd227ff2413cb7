// Boots the real server binary on a free port, as `npm start` does, and talks HTTP to it: the
// first start creates the organization and prints the owner's credentials; curl-style calls work;
// SIGTERM stops it cleanly; a second start keeps every row.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmptyDatabase, serverUrl, type TestDatabase } from '../helpers/database.js';
import { SERVER_ENV, startServerProcess, type RunningServer } from '../helpers/process.js';
import { tempDir } from '../helpers/temp-dir.js';

const dataDir = tempDir('parley-smoke-');
let env: Record<string, string>;
let db: TestDatabase | null = null;
let server: RunningServer;
let creds: { email: string; key: string; password: string };
/** When the test spawned the first server (performance.now()). */
let spawnedAt = 0;

const t = suite('server process');
t.before(async () => {
  env = { DATA_DIR: dataDir };
  if (serverUrl()) {
    db = await openEmptyDatabase();
    await db.pool.end();
    env.DATABASE_URL = db.testUrl!;
  }
});
t.after(async () => {
  if (server?.child.exitCode === null) await server.stop('SIGKILL');
  if (db) await db.close().catch(() => undefined);
});

const basic = () => `Basic ${Buffer.from(`${creds.email}:${creds.key}`).toString('base64')}`;

t('first start creates the organization and prints the owner credentials', async () => {
  spawnedAt = performance.now();
  server = await startServerProcess(env);
  const out = server.output();
  const field = (label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(out)?.[1];
  creds = { email: field('Owner')!, key: field('API key')!, password: field('Password')! };
  assert.ok(creds.email && creds.key && creds.password, out);
  assert.match(creds.key, /^[A-Za-z0-9]{32}$/);
  assert.match(out, new RegExp(`URL:\\s+${server.url.replace(/[.]/g, '\\.')}`));
  const rc = join(dataDir, 'parleyrc');
  assert.match(out, new RegExp(`written to ${rc.replace(/[.]/g, '\\.')}`));
  assert.is(readFileSync(rc, 'utf8'), `[api]\nemail=${creds.email}\nkey=${creds.key}\nsite=${server.url}\n`);
  assert.is(statSync(rc).mode & 0o777, 0o600);
});

t('the server runs with the environment npm start gives it', () => {
  // Linux shows a process's environment in /proc; the variable is glibc's (see SERVER_ENV).
  if (process.platform !== 'linux') return;
  const environ = readFileSync(`/proc/${server.child.pid}/environ`, 'latin1').split('\0');
  for (const [k, v] of Object.entries(SERVER_ENV)) assert.ok(environ.includes(`${k}=${v}`), `${k}=${v}`);
});

t('GET /users/me with the printed credentials answers with the owner', async () => {
  const r = await fetch(`${server.url}/api/v1/users/me`, { headers: { authorization: basic() } });
  assert.is(r.status, 200);
  const me = (await r.json()) as Record<string, unknown>;
  assert.is(me.email, creds.email);
  assert.is(me.role, 100);
  assert.is(me.is_owner, true);
});

t('GET /server_settings answers without credentials', async () => {
  const r = await fetch(`${server.url}/api/v1/server_settings`);
  const s = (await r.json()) as Record<string, unknown>;
  assert.is(r.status, 200);
  assert.is(s.service_feature_level, 496);
  assert.is(s.realm_url, server.url);
});

t('fetch_api_key with the printed password returns the same key', async () => {
  const r = await fetch(`${server.url}/api/v1/fetch_api_key`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: creds.email, password: creds.password }).toString(),
  });
  assert.is(((await r.json()) as { api_key: string }).api_key, creds.key);
});

t('GET /health reports the database and migrations', async () => {
  const h = (await (await fetch(`${server.url}/health`)).json()) as { status: string; migrations: { applied: number; expected: number } };
  assert.is(h.status, 'ok');
  assert.is(h.migrations.applied, h.migrations.expected);
});

t('/metrics tells how long each phase of the start took, together no longer than the start', async () => {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const phases = [...text.matchAll(/^parley_startup_seconds\{phase="(\w+)"\} (\S+)$/gm)].map((m) => [m[1], Number(m[2])] as const);
  assert.equal(
    phases.map(([p]) => p),
    ['load', 'database', 'organizations', 'queues', 'listen'],
  );
  for (const [p, s] of phases) assert.ok(s >= 0 && Number.isFinite(s), `${p}: ${s}`);
  // Node starts the process's clock after the test spawned it, and the server served before /health answered.
  const total = phases.reduce((sum, [, s]) => sum + s, 0) * 1000;
  assert.ok(total > 0 && total <= performance.now() - spawnedAt, `phases ${total} ms`);
});

t('SIGTERM stops the server cleanly', async () => {
  const started = Date.now();
  assert.is(await server.stop('SIGTERM'), 0);
  assert.ok(Date.now() - started < 10_000);
});

t('a second start keeps every row and prints no new credentials', async () => {
  server = await startServerProcess({ ...env, LOG_LEVEL: 'info' });
  assert.not.match(server.output(), /API key:/);
  // The serving line tells the start's phases too (README, Operations).
  assert.match(server.output(), /"startupMs":\{"load":\d+,"database":\d+,"organizations":\d+,"queues":\d+,"listen":\d+\}/);
  const r = await fetch(`${server.url}/api/v1/users/me`, { headers: { authorization: basic() } });
  assert.is(r.status, 200);
  assert.is(await server.stop('SIGTERM'), 0);
});

t('a bad configuration value stops the start with a clear message', async () => {
  try {
    await startServerProcess({ ...env, PORT: '9', DB_POOL_MAX: 'lots' }, 10_000);
    assert.unreachable('should not start');
  } catch (e) {
    assert.match((e as Error).message, /DB_POOL_MAX="lots": Expected number/);
  }
});

t.run();
