// Management commands. The same functions run in the CLI's own process (server stopped) and
// inside a running server that received them on its admin socket, so the server's caches stay
// coherent with what the CLI changed.
import { z } from 'zod';
import type { App } from '../app.js';
import type { RealmHandle } from '../actors/realm/actor.js';
import type { UserRecord } from '../actors/realm/state.js';
import { errors } from '../domain/errors.js';
import { Role, roleNames } from '../domain/roles.js';
import { generatePassword, hashPassword, unsealApiKey } from '../domain/secrets.js';
import { getCredentials } from '../store/users.js';

export const ROLE_ARGUMENT = ['owner', 'admin', 'moderator', 'member', 'guest'] as const;
const role = z.enum(ROLE_ARGUMENT);
const host = z.string().min(1).optional();

export const adminCommand = z.discriminatedUnion('command', [
  z.object({
    command: z.literal('realm.create'),
    name: z.string().min(1),
    host: z.string().min(1),
    url: z.string().url().optional(),
    ownerEmail: z.string().min(3),
    ownerName: z.string().min(1),
    ownerPassword: z.string().min(1).optional(),
  }),
  z.object({ command: z.literal('realm.list') }),
  z.object({ command: z.literal('realm.deactivate'), host: z.string().min(1) }),
  z.object({ command: z.literal('realm.reactivate'), host: z.string().min(1) }),
  z.object({
    command: z.literal('user.create'),
    host,
    email: z.string().min(1),
    name: z.string().min(1),
    role: role.default('member'),
    bot: z.boolean().default(false),
    password: z.string().min(1).optional(),
  }),
  z.object({ command: z.literal('user.apiKey'), host, email: z.string().min(1) }),
  z.object({ command: z.literal('user.role'), host, email: z.string().min(1), role }),
  z.object({ command: z.literal('user.deactivate'), host, email: z.string().min(1) }),
  z.object({
    command: z.literal('user.permissions'),
    host,
    email: z.string().min(1),
    canChangeUserEmails: z.boolean().optional(),
    canCreateUsers: z.boolean().optional(),
  }),
  z.object({ command: z.literal('user.reactivate'), host, email: z.string().min(1) }),
  z.object({
    command: z.literal('user.seed'),
    host,
    count: z.number().int().min(1).max(100_000),
    prefix: z.string().regex(/^[a-z0-9][a-z0-9_.-]*$/i).default('seed'),
  }),
]);
export type AdminCommand = z.input<typeof adminCommand>;
export type AdminResult = Record<string, unknown>;

const ROLE_LABEL: Record<number, string> = { 100: 'owner', 200: 'admin', 300: 'moderator', 400: 'member', 600: 'guest' };

async function realmFor(app: App, hostArg: string | undefined): Promise<RealmHandle> {
  const realm = hostArg === undefined ? app.realms.only() : app.realms.exact(hostArg);
  if (!realm) {
    if (hostArg !== undefined) throw errors.badRequest(`No organization is served at ${hostArg}`);
    throw errors.badRequest(
      app.realms.count === 0
        ? 'No organization exists yet; create one with `realm create`'
        : 'More than one organization exists; pass --host',
    );
  }
  return realm;
}

function userFor(realm: RealmHandle, email: string): UserRecord {
  const u = realm.state.userByDeliveryEmail(email) ?? realm.state.userByEmail(email);
  if (!u) throw errors.badRequest(`No user ${email} in ${realm.state.realm.host}`);
  return u;
}

const describeUser = (realm: RealmHandle, u: UserRecord) => ({
  realm: realm.state.realm.host,
  user_id: u.id,
  email: u.email,
  delivery_email: u.delivery_email,
  full_name: u.full_name,
  role: ROLE_LABEL[u.role],
  is_bot: u.is_bot,
  is_active: u.is_active,
});

/** Accounts per transaction of `user seed` (each account logs one event row). */
const SEED_BATCH = 1000;

async function createUser(
  realm: RealmHandle,
  o: { email: string; name: string; role: Role; bot: boolean; password?: string | undefined },
) {
  const password = o.bot ? null : (o.password ?? generatePassword());
  const { user, apiKey } = await realm.ask('user.create', {
    email: o.bot ? o.email.replace(/@.*$/, '') : o.email,
    fullName: o.name,
    role: o.role,
    passwordHash: password === null ? null : await hashPassword(password),
    bot: o.bot ? { type: 1, ownerId: null } : undefined,
  });
  return {
    ...describeUser(realm, user),
    api_key: apiKey,
    ...(password !== null && o.password === undefined ? { password } : {}),
  };
}

export async function runAdminCommand(app: App, input: AdminCommand): Promise<AdminResult> {
  const cmd = adminCommand.parse(input);
  switch (cmd.command) {
    case 'realm.create': {
      const realm = await app.realms.create({ host: cmd.host, url: cmd.url, name: cmd.name });
      const owner = await createUser(realm, {
        email: cmd.ownerEmail,
        name: cmd.ownerName,
        role: Role.owner,
        bot: false,
        password: cmd.ownerPassword,
      });
      return { realm_id: realm.id, host: realm.state.realm.host, url: realm.state.realm.url, owner };
    }
    case 'realm.list':
      return {
        realms: (await app.realms.list()).map((r) => ({
          realm_id: r.id,
          host: r.host,
          url: r.url,
          name: r.name,
          deactivated: r.deactivated,
        })),
      };
    case 'realm.deactivate':
    case 'realm.reactivate': {
      const realm = await realmFor(app, cmd.host);
      const r = await realm.ask('realm.setActive', { active: cmd.command === 'realm.reactivate' });
      return { realm_id: realm.id, host: realm.state.realm.host, deactivated: r.deactivated };
    }
    case 'user.create': {
      const realm = await realmFor(app, cmd.host);
      return createUser(realm, { ...cmd, role: roleNames[cmd.role]! });
    }
    case 'user.seed': {
      // Emails <prefix><n>@<host>, numbered after any earlier seed with the same prefix.
      const realm = await realmFor(app, cmd.host);
      const domain = realm.state.realm.host.replace(/:\d+$/, '');
      let first = 1;
      while (realm.state.userByDeliveryEmail(`${cmd.prefix}${first}@${domain}`)) first += 1;
      const accounts = Array.from({ length: cmd.count }, (_, i) => ({
        email: `${cmd.prefix}${first + i}@${domain}`,
        fullName: `${cmd.prefix} ${first + i}`,
      }));
      const users = [];
      for (let i = 0; i < accounts.length; i += SEED_BATCH) {
        users.push(...(await realm.ask('user.createMany', { accounts: accounts.slice(i, i + SEED_BATCH) })));
      }
      return { realm: realm.state.realm.host, users: users.map((u) => ({ user_id: u.id, email: u.email, api_key: u.apiKey })) };
    }
    case 'user.apiKey': {
      const realm = await realmFor(app, cmd.host);
      const user = userFor(realm, cmd.email);
      const creds = await getCredentials(app.db, user.id);
      return { ...describeUser(realm, user), api_key: unsealApiKey(app.secret, creds.api_key_sealed), site: realm.state.realm.url };
    }
    case 'user.role': {
      const realm = await realmFor(app, cmd.host);
      const user = await realm.ask('user.setRole', {
        userId: userFor(realm, cmd.email).id,
        role: roleNames[cmd.role]!,
        actorId: null,
      });
      return describeUser(realm, user);
    }
    case 'user.permissions': {
      const realm = await realmFor(app, cmd.host);
      const user = await realm.ask('user.setSpecialPermissions', {
        userId: userFor(realm, cmd.email).id,
        canChangeUserEmails: cmd.canChangeUserEmails,
        canCreateUsers: cmd.canCreateUsers,
      });
      return { ...describeUser(realm, user), can_change_user_emails: user.can_change_user_emails, can_create_users: user.can_create_users };
    }
    case 'user.deactivate':
    case 'user.reactivate': {
      const realm = await realmFor(app, cmd.host);
      const user = await realm.ask('user.setActive', {
        userId: userFor(realm, cmd.email).id,
        active: cmd.command === 'user.reactivate',
        actorId: null,
      });
      return describeUser(realm, user);
    }
  }
}
