// GET /server_settings (endpoint 23) and GET /health: no credentials needed.
import { createHash, timingSafeEqual } from 'node:crypto';
import { errors } from '../../domain/errors.js';
import { z } from 'zod';
import type { RealmHandle } from '../../actors/realm/actor.js';
import { EXTERNAL_AVATAR_BASE } from '../../domain/avatar.js';
import { hasWebPublicChannel } from '../../store/channels.js';
import { currentVersion, loadMigrations } from '../../store/migrate.js';
import { SERVICE_FEATURE_LEVEL, SERVICE_MERGE_BASE, SERVICE_VERSION } from '../../version.js';
import { RawResponse, serverEndpoint } from '../endpoint.js';
import { renderPlainDescription } from './render.js';

const authenticationMethods = {
  password: true,
  dev: false,
  email: true,
  ldap: false,
  remoteuser: false,
  github: false,
  azuread: false,
  gitlab: false,
  apple: false,
  google: false,
  saml: false,
  'openid connect': false,
};

export function realmIconUrl(realm: RealmHandle): string {
  const r = realm.state.realm;
  if (r.icon_url) return r.icon_url;
  const hash = createHash('md5').update(`realm-${r.id}`).digest('hex');
  return `${EXTERNAL_AVATAR_BASE}/${hash}?d=identicon&s=100`;
}

async function webPublicAccessEnabled(realm: RealmHandle): Promise<boolean> {
  if (!realm.state.realm.settings.enable_spectator_access) return false;
  return hasWebPublicChannel(realm.services.db, realm.id);
}

export const getServerSettings = serverEndpoint(z.object({}), async (ctx) => {
  const data: Record<string, unknown> = {
    authentication_methods: authenticationMethods,
    external_authentication_methods: [],
    service_feature_level: SERVICE_FEATURE_LEVEL,
    service_version: SERVICE_VERSION,
    service_merge_base: SERVICE_MERGE_BASE,
    push_notifications_enabled: ctx.app.config.pushServiceUrl !== undefined,
    is_incompatible: false,
    email_auth_enabled: true,
    require_email_format_usernames: true,
  };
  const realm = ctx.realm;
  if (realm) {
    const r = realm.state.realm;
    data.realm_url = r.url;
    data.realm_uri = r.url;
    data.realm_name = r.name;
    data.realm_icon = realmIconUrl(realm);
    data.realm_description = renderPlainDescription(r.description);
    data.realm_web_public_access_enabled = await webPublicAccessEnabled(realm);
  }
  return data;
});

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/** Prometheus metrics: with METRICS_TOKEN a bearer token is required, otherwise a loopback client. */
export const getMetrics = serverEndpoint(z.object({}), async (ctx) => {
  const token = ctx.app.config.metricsToken;
  if (token) {
    const presented = /^Bearer\s+(\S+)$/i.exec(ctx.headers.authorization ?? '')?.[1] ?? '';
    const a = Buffer.from(presented);
    const b = Buffer.from(token);
    if (a.length !== b.length || !timingSafeEqual(a, b)) throw errors.notLoggedIn();
  } else if (!LOOPBACK.test(ctx.remoteAddress)) {
    throw errors.forbidden('Metrics are served to loopback clients only (or set METRICS_TOKEN)');
  }
  const registry = ctx.app.metrics.registry;
  return new RawResponse(200, { 'Content-Type': registry.contentType }, await registry.metrics());
});

const expectedMigration = loadMigrations().at(-1)?.version ?? 0;

/** Liveness and readiness: the database answers and the schema is current. */
export const getHealth = serverEndpoint(z.object({}), async (ctx) => {
  let status = 200;
  let database = 'ok';
  let migrations = 0;
  try {
    migrations = await currentVersion(ctx.app.db);
    if (migrations !== expectedMigration) status = 503;
  } catch {
    status = 503;
    database = 'unreachable';
  }
  const body = {
    status: status === 200 ? 'ok' : 'unavailable',
    database,
    migrations: { applied: migrations, expected: expectedMigration },
    version: SERVICE_VERSION,
  };
  return new RawResponse(status, { 'Content-Type': 'application/json' }, JSON.stringify(body));
});
