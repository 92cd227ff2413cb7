// GET /server_settings (endpoint 23): no credentials, every field of the spec's table.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SERVICE_FEATURE_LEVEL, SERVICE_VERSION } from '../../src/version.js';
import { assertSuccess } from '../helpers/assert.js';
import { startTestServer, type TestRealm, type TestServer } from '../helpers/server.js';
import { readFileSync } from 'node:fs';

let server: TestServer;
let realm: TestRealm;
const t = suite('server_settings');
t.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm({ name: 'Acme Chat' });
});
t.after(() => server.close());

t('answers without credentials with every field of the table', async () => {
  const s = assertSuccess(await realm.anonymous('GET', '/api/v1/server_settings'));
  const fields = [
    'authentication_methods', 'external_authentication_methods', 'service_feature_level', 'service_version',
    'service_merge_base', 'push_notifications_enabled', 'is_incompatible', 'email_auth_enabled',
    'require_email_format_usernames', 'realm_url', 'realm_uri', 'realm_name', 'realm_icon', 'realm_description',
    'realm_web_public_access_enabled',
  ];
  for (const f of fields) assert.ok(f in s, `missing ${f}`);
  assert.is(s.service_feature_level, 496);
  assert.is(s.service_feature_level, SERVICE_FEATURE_LEVEL);
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
  assert.is(s.service_version, pkg.version);
  assert.is(s.service_version, SERVICE_VERSION);
  assert.is(s.service_merge_base, s.service_version);
  assert.is(s.realm_name, 'Acme Chat');
  assert.is(s.realm_url, `https://${realm.host}`);
  assert.is(s.realm_uri, s.realm_url);
  assert.type(s.realm_icon, 'string');
  assert.is(s.realm_description, '');
  assert.is(s.realm_web_public_access_enabled, false);
  assert.is(s.email_auth_enabled, true);
  assert.is(s.require_email_format_usernames, true);
  assert.is(s.is_incompatible, false);
  assert.is(s.push_notifications_enabled, false);
  assert.equal(s.external_authentication_methods, []);
});

t('authentication_methods has every documented key as a boolean', async () => {
  const s = assertSuccess(await realm.anonymous('GET', '/api/v1/server_settings'));
  const keys = ['password', 'dev', 'email', 'ldap', 'remoteuser', 'saml', 'openid connect', 'github', 'gitlab', 'azuread', 'apple', 'google'];
  for (const k of keys) assert.type(s.authentication_methods[k], 'boolean', k);
  assert.is(s.authentication_methods.password, true);
  assert.is(s.authentication_methods.email, true);
});

t('without a matching organization the realm fields are omitted', async () => {
  await server.createRealm();
  const s = assertSuccess(await server.request('GET', '/api/v1/server_settings', {}, { host: 'root.example.test' }));
  assert.is(s.service_feature_level, 496);
  assert.not.ok('realm_url' in s);
  assert.not.ok('realm_name' in s);
});

t('credentials are not needed and do not matter', async () => {
  const s = assertSuccess(await realm.owner.get('/api/v1/server_settings'));
  assert.is(s.realm_name, 'Acme Chat');
});

t.run();
