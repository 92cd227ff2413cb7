// The management CLI: every command, machine-readable output, bad input, and the same commands
// against a running server (they go through its admin socket and take effect at once).
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmptyDatabase, serverUrl, type TestDatabase } from '../helpers/database.js';
import { httpRequest, runCli, startServerProcess, type CliResult } from '../helpers/process.js';
import { tempDir } from '../helpers/temp-dir.js';

const dataDir = tempDir('parley-cli-');
let env: Record<string, string>;
let db: TestDatabase | null = null;

const json = (r: CliResult) => {
  assert.is(r.code, 0, `exit ${r.code}: ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
};

const t = suite('cli without a server');
t.before(async () => {
  env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  if (serverUrl()) {
    db = await openEmptyDatabase();
    await db.pool.end();
    env.DATABASE_URL = db.testUrl!;
  }
});

t('realm create makes the organization and its owner', async () => {
  const r = json(await runCli(['realm', 'create', '--name', 'Acme', '--host', 'acme.test', '--owner-email', 'boss@acme.test', '--owner-name', 'The Boss', '--json'], env));
  assert.is(r.host, 'acme.test');
  assert.is(r.url, 'https://acme.test');
  assert.is(r.owner.role, 'owner');
  assert.is(r.owner.email, 'boss@acme.test');
  assert.match(r.owner.api_key, /^[A-Za-z0-9]{32}$/);
  assert.match(r.owner.password, /^[A-Za-z0-9]{20}$/);
});

t('realm list', async () => {
  json(await runCli(['realm', 'create', '--name', 'Beta', '--host', 'beta.test', '--owner-email', 'b@beta.test', '--owner-name', 'B', '--owner-password', 'pw-given', '--json'], env));
  const r = json(await runCli(['realm', 'list', '--json'], env));
  assert.equal(r.realms.map((x: { host: string }) => x.host), ['acme.test', 'beta.test']);
  const human = await runCli(['realm', 'list'], env);
  assert.is(human.code, 0);
  assert.match(human.stdout, /host: acme\.test/);
});

t('user create with roles and bots', async () => {
  const m = json(await runCli(['user', 'create', '--host', 'acme.test', '--email', 'mia@acme.test', '--name', 'Mia', '--json'], env));
  assert.is(m.role, 'member');
  const a = json(await runCli(['user', 'create', '--host', 'acme.test', '--email', 'al@acme.test', '--name', 'Al', '--role', 'admin', '--password', 'secret1', '--json'], env));
  assert.is(a.role, 'admin');
  assert.not.ok('password' in a, 'a given password is not echoed');
  const bot = json(await runCli(['user', 'create', '--host', 'acme.test', '--email', 'helper', '--name', 'Helper Bot', '--bot', '--json'], env));
  assert.is(bot.is_bot, true);
  assert.is(bot.email, 'helper-bot@acme.test');
});

t('user permissions grants and withdraws the special permissions', async () => {
  const on = json(await runCli(['user', 'permissions', '--host', 'acme.test', '--email', 'al@acme.test', '--can-create-users', 'true', '--json'], env));
  assert.is(on.can_create_users, true);
  assert.is(on.can_change_user_emails, false);
  const off = json(await runCli(['user', 'permissions', '--host', 'acme.test', '--email', 'al@acme.test', '--can-create-users', 'false', '--can-change-user-emails', 'true', '--json'], env));
  assert.is(off.can_create_users, false);
  assert.is(off.can_change_user_emails, true);
  const bad = await runCli(['user', 'permissions', '--host', 'acme.test', '--email', 'al@acme.test', '--can-create-users', 'yes'], env);
  assert.is.not(bad.code, 0);
  assert.match(bad.stderr + bad.stdout, /--can-create-users takes true or false/);
});

t('user api-key prints the key and writes a client config file', async () => {
  const rc = join(dataDir, 'mia.rc');
  const r = json(await runCli(['user', 'api-key', '--host', 'acme.test', '--email', 'mia@acme.test', '--apirc', rc, '--json'], env));
  assert.match(r.api_key, /^[A-Za-z0-9]{32}$/);
  assert.is(readFileSync(rc, 'utf8'), `[api]\nemail=mia@acme.test\nkey=${r.api_key}\nsite=https://acme.test\n`);
  assert.is(statSync(rc).mode & 0o777, 0o600);
});

t('user seed creates members in bulk, numbered after an earlier seed, with working keys', async () => {
  const first = json(await runCli(['user', 'seed', '--host', 'acme.test', '--count', '3', '--prefix', 'load', '--json'], env));
  assert.equal(
    first.users.map((u: { email: string }) => u.email),
    ['load1@acme.test', 'load2@acme.test', 'load3@acme.test'],
  );
  const more = json(await runCli(['user', 'seed', '--host', 'acme.test', '--count', '2', '--prefix', 'load', '--json'], env));
  assert.equal(
    more.users.map((u: { email: string }) => u.email),
    ['load4@acme.test', 'load5@acme.test'],
  );
  const key = json(await runCli(['user', 'api-key', '--host', 'acme.test', '--email', 'load2@acme.test', '--json'], env));
  assert.is(key.api_key, first.users[1].api_key);
  assert.is(key.role, 'member');
  const bad = await runCli(['user', 'seed', '--host', 'acme.test', '--count', '0'], env);
  assert.is.not(bad.code, 0);
  assert.match(bad.stderr, '--count must be an integer from 1 to 100000');
});

// A list larger than a pipe's buffer (64 KiB), read only after a while: the CLI must not exit
// before all of its output has gone into the pipe.
t('user seed --json prints every account to a pipe that is read slowly', async () => {
  const big = json(await runCli(['user', 'seed', '--host', 'acme.test', '--count', '1000', '--prefix', 'bulk', '--json'], env, { slowPipeSeconds: 1.5 }));
  assert.is(big.users.length, 1000);
  assert.is(big.users[999].email, 'bulk1000@acme.test');
});

t('user role, deactivate, reactivate', async () => {
  assert.is(json(await runCli(['user', 'role', '--host', 'acme.test', '--email', 'mia@acme.test', '--role', 'moderator', '--json'], env)).role, 'moderator');
  assert.is(json(await runCli(['user', 'deactivate', '--host', 'acme.test', '--email', 'mia@acme.test', '--json'], env)).is_active, false);
  assert.is(json(await runCli(['user', 'reactivate', '--host', 'acme.test', '--email', 'mia@acme.test', '--json'], env)).is_active, true);
});

t('realm deactivate and reactivate', async () => {
  assert.is(json(await runCli(['realm', 'deactivate', '--host', 'beta.test', '--json'], env)).deactivated, true);
  const again = await runCli(['realm', 'deactivate', '--host', 'beta.test'], env);
  assert.is(again.code, 1);
  assert.match(again.stderr, /already deactivated/);
  assert.is(json(await runCli(['realm', 'reactivate', '--host', 'beta.test', '--json'], env)).deactivated, false);
});

t('bad input exits non-zero with a clear message', async () => {
  const unknown = await runCli(['frobnicate'], env);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /Unknown command 'frobnicate'/);
  const missing = await runCli(['user', 'create', '--host', 'acme.test'], env);
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /Missing --email, --name/);
  const role = await runCli(['user', 'role', '--host', 'acme.test', '--email', 'mia@acme.test', '--role', 'king'], env);
  assert.is(role.code, 2);
  assert.match(role.stderr, /Invalid role 'king'/);
  const dup = await runCli(['user', 'create', '--host', 'acme.test', '--email', 'mia@acme.test', '--name', 'Again', '--json'], env);
  assert.is(dup.code, 1);
  assert.equal(JSON.parse(dup.stdout), { error: "Email 'mia@acme.test' already in use" });
  const host = await runCli(['user', 'api-key', '--host', 'nowhere.test', '--email', 'x@y.z'], env);
  assert.is(host.code, 1);
  assert.match(host.stderr, /No organization is served at nowhere\.test/);
  const ambiguous = await runCli(['user', 'api-key', '--email', 'x@y.z'], env);
  assert.match(ambiguous.stderr, /More than one organization exists; pass --host/);
  const lastOwner = await runCli(['user', 'deactivate', '--host', 'acme.test', '--email', 'boss@acme.test'], env);
  assert.is(lastOwner.code, 1);
  assert.match(lastOwner.stderr, /Cannot deactivate the only organization owner/);
});

const live = suite('cli with the server running');
live.after(async () => {
  if (db) await db.close().catch(() => undefined);
});

live('commands go to the running server and take effect at once', async () => {
  const server = await startServerProcess(env);
  try {
    const created = json(await runCli(['user', 'create', '--host', 'acme.test', '--email', 'zed@acme.test', '--name', 'Zed', '--json'], env));
    const auth = `Basic ${Buffer.from(`zed@acme.test:${created.api_key}`).toString('base64')}`;
    const me = () => httpRequest(`${server.url}/api/v1/users/me`, { headers: { authorization: auth, host: 'acme.test' } });
    assert.is((await me()).status, 200);
    json(await runCli(['user', 'deactivate', '--host', 'acme.test', '--email', 'zed@acme.test', '--json'], env));
    const r = await me();
    assert.is(r.status, 401);
    assert.is(r.json().code, 'USER_DEACTIVATED');
    const listed = json(await runCli(['realm', 'list', '--json'], env));
    assert.is(listed.realms.length, 2);
  } finally {
    assert.is(await server.stop('SIGTERM'), 0);
  }
});

t.run();
live.run();
