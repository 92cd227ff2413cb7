// First start on an empty database: one organization at the server's own URL and its owner,
// whose credentials are printed once and written to a client config file (mode 0600).
import { join } from 'node:path';
import type { App } from './app.js';
import { writeClientConfig } from './cli/rc-file.js';
import { Role } from './domain/roles.js';
import { generatePassword, hashPassword } from './domain/secrets.js';

export interface BootstrapResult {
  readonly url: string;
  readonly email: string;
  readonly password: string;
  readonly apiKey: string;
  readonly rcFile: string;
}

export async function bootstrapIfEmpty(app: App): Promise<BootstrapResult | null> {
  if (app.realms.count > 0) return null;
  const { config } = app;
  const url = config.externalUrl;
  const realm = await app.realms.create({ host: new URL(url).host, url, name: config.bootstrap.realmName });
  const password = generatePassword();
  const { user, apiKey } = await realm.ask('user.create', {
    email: config.bootstrap.ownerEmail,
    fullName: config.bootstrap.ownerName,
    role: Role.owner,
    passwordHash: await hashPassword(password),
  });
  const rcFile = join(config.dataDir, 'parleyrc');
  writeClientConfig(rcFile, { email: user.email, key: apiKey, site: url });
  return { url, email: user.email, password, apiKey, rcFile };
}

export function describeBootstrap(b: BootstrapResult): string {
  return [
    '',
    'Parley created your organization on this first start.',
    `  URL:       ${b.url}`,
    `  Owner:     ${b.email}`,
    `  Password:  ${b.password}`,
    `  API key:   ${b.apiKey}`,
    `  Client configuration written to ${b.rcFile}`,
    `  Try:  curl -u ${b.email}:${b.apiKey} ${b.url}/api/v1/users/me`,
    '',
  ].join('\n');
}
