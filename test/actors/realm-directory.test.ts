// Which organization a request's Host header names: its own host (with or without the port), or
// the only organization when there is one. The directory remembers its answers per header, and
// forgets them when the organizations change.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_RESOLVED_HOSTS } from '../../src/actors/realm/directory.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { startTestServer, type TestRealm, type TestServer } from '../helpers/server.js';

const t = suite('realm directory');
let server: TestServer;

t.before.each(async () => {
  server = await startTestServer();
});
t.after.each(async () => {
  await server.close();
});

const me = (realm: TestRealm, host: string) => realm.owner.get('/api/v1/users/me', {}, { host });

t('the only organization is served at any host, and no longer once a second one exists', async () => {
  const first = await server.createRealm();
  assertSuccess(await me(first, 'elsewhere.test'));
  assertSuccess(await me(first, 'elsewhere.test')); // asked again: the remembered answer
  const second = await server.createRealm();
  assertError(await me(first, 'elsewhere.test'), 'Organization not registered', 404);
  assertSuccess(await me(first, first.host));
  assertSuccess(await me(second, second.host));
  // Upper case, a trailing dot and a port.
  assertSuccess(await me(second, `${second.host.toUpperCase()}.:8080`));
});

t('a host that named nothing names the organization created at it', async () => {
  const first = await server.createRealm();
  await server.createRealm();
  assertError(await me(first, 'late.test'), 'Organization not registered', 404);
  const late = await server.app.realms.create({ host: 'late.test', name: 'Late' });
  const res = await server.request('GET', '/api/v1/server_settings', {}, { host: 'late.test' });
  assertSuccess(res);
  assert.is(res.json.realm_name, late.state.realm.name);
});

t('the remembered answers are bounded: clients choose the headers', async () => {
  const first = await server.createRealm();
  await server.createRealm();
  for (let i = 0; i < MAX_RESOLVED_HOSTS + 10; i++) {
    assertError(await me(first, `h${i}.test`), 'Organization not registered', 404);
    assert.ok(server.app.realms.rememberedHosts <= MAX_RESOLVED_HOSTS, `${server.app.realms.rememberedHosts} remembered`);
  }
  assertSuccess(await me(first, first.host));
  const before = server.app.realms.rememberedHosts;
  assertError(await me(first, `${'x'.repeat(300)}.test`), 'Organization not registered', 404);
  assert.is(server.app.realms.rememberedHosts, before, 'a header longer than a host name is not kept');
});

t.run();
