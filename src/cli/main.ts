#!/usr/bin/env node
// `npm run cli -- <command>`: management commands. With a server running on this DATA_DIR the
// command goes to it over the admin socket; otherwise the CLI opens the database itself.
import { parseArgs } from 'node:util';
import { createApp } from '../app.js';
import { ConfigError, parseConfig } from '../config.js';
import { createLogger } from '../log.js';
import { acquireLock, LockedError } from '../process-lock.js';
import { callAdminSocket } from './admin-socket.js';
import { ROLE_ARGUMENT, runAdminCommand, type AdminCommand, type AdminResult } from './commands.js';
import { writeClientConfig } from './rc-file.js';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  realm create --name N --host H --owner-email E --owner-name N [--owner-password P] [--url U]
  realm list
  realm deactivate --host H
  realm reactivate --host H
  user create --host H --email E --name N [--role R] [--bot] [--password P]
  user api-key --host H --email E [--apirc PATH]
  user role --host H --email E --role R
  user deactivate --host H --email E
  user permissions --host H --email E [--can-change-user-emails true|false] [--can-create-users true|false]
  user reactivate --host H --email E
  user seed --host H --count N [--prefix P]   (N members at once, emails P1@…; prints their API keys)

Roles: ${ROLE_ARGUMENT.join(', ')}. --host may be omitted when there is one organization.
Options: --json prints machine-readable output.`;

class UsageError extends Error {}

function required(values: Record<string, unknown>, ...names: string[]): void {
  const missing = names.filter((n) => values[n] === undefined);
  if (missing.length > 0) throw new UsageError(`Missing ${missing.map((m) => `--${m}`).join(', ')}`);
}

function checkRole(r: unknown): (typeof ROLE_ARGUMENT)[number] | undefined {
  if (r === undefined) return undefined;
  if (!(ROLE_ARGUMENT as readonly unknown[]).includes(r)) {
    throw new UsageError(`Invalid role '${String(r)}' (one of ${ROLE_ARGUMENT.join(', ')})`);
  }
  return r as (typeof ROLE_ARGUMENT)[number];
}

function checkFlag(name: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new UsageError(`--${name} takes true or false`);
}

export function parseCommand(argv: string[]): { cmd: AdminCommand; json: boolean; apirc?: string } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      host: { type: 'string' },
      url: { type: 'string' },
      name: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      bot: { type: 'boolean' },
      password: { type: 'string' },
      apirc: { type: 'string' },
      json: { type: 'boolean' },
      'owner-email': { type: 'string' },
      'owner-name': { type: 'string' },
      'owner-password': { type: 'string' },
      'can-change-user-emails': { type: 'string' },
      'can-create-users': { type: 'string' },
      count: { type: 'string' },
      prefix: { type: 'string' },
    },
  });
  const json = values.json ?? false;
  const [noun, verb, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`Unexpected argument '${rest[0]}'`);
  const v = values as Record<string, string | boolean | undefined>;
  const s = (k: string) => v[k] as string;
  switch (`${noun} ${verb}`) {
    case 'realm create':
      required(v, 'name', 'host', 'owner-email', 'owner-name');
      return {
        json,
        cmd: {
          command: 'realm.create',
          name: s('name'),
          host: s('host'),
          url: v.url as string | undefined,
          ownerEmail: s('owner-email'),
          ownerName: s('owner-name'),
          ownerPassword: v['owner-password'] as string | undefined,
        },
      };
    case 'realm list':
      return { json, cmd: { command: 'realm.list' } };
    case 'realm deactivate':
    case 'realm reactivate':
      required(v, 'host');
      return { json, cmd: { command: verb === 'deactivate' ? 'realm.deactivate' : 'realm.reactivate', host: s('host') } };
    case 'user seed': {
      required(v, 'count');
      const count = Number(v.count);
      if (!Number.isInteger(count) || count < 1 || count > 100_000) throw new UsageError('--count must be an integer from 1 to 100000');
      return { json, cmd: { command: 'user.seed', host: v.host as string | undefined, count, prefix: (v.prefix as string | undefined) ?? 'seed' } };
    }
    case 'user create':
      required(v, 'email', 'name');
      return {
        json,
        cmd: {
          command: 'user.create',
          host: v.host as string | undefined,
          email: s('email'),
          name: s('name'),
          role: checkRole(v.role),
          bot: v.bot === true,
          password: v.password as string | undefined,
        },
      };
    case 'user api-key':
      required(v, 'email');
      return { json, apirc: v.apirc as string | undefined, cmd: { command: 'user.apiKey', host: v.host as string | undefined, email: s('email') } };
    case 'user role':
      required(v, 'email', 'role');
      return { json, cmd: { command: 'user.role', host: v.host as string | undefined, email: s('email'), role: checkRole(v.role)! } };
    case 'user permissions':
      required(v, 'email');
      return {
        json,
        cmd: {
          command: 'user.permissions',
          host: v.host as string | undefined,
          email: s('email'),
          canChangeUserEmails: checkFlag('can-change-user-emails', v['can-change-user-emails']),
          canCreateUsers: checkFlag('can-create-users', v['can-create-users']),
        },
      };
    case 'user deactivate':
    case 'user reactivate':
      required(v, 'email');
      return {
        json,
        cmd: { command: verb === 'deactivate' ? 'user.deactivate' : 'user.reactivate', host: v.host as string | undefined, email: s('email') },
      };
    default:
      throw new UsageError(noun === undefined ? 'No command given' : `Unknown command '${positionals.join(' ')}'`);
  }
}

/**
 * Write and wait until the text is handed to the operating system: to a pipe, stdout is
 * asynchronous, and exiting before then cut a large `user seed --json` list short.
 */
function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

function printHuman(result: AdminResult): Promise<void> {
  const lines: string[] = [];
  const walk = (o: Record<string, unknown>, indent: string) => {
    for (const [k, v] of Object.entries(o)) {
      if (Array.isArray(v)) {
        lines.push(`${indent}${k}:${v.length === 0 ? ' (none)' : ''}`);
        for (const item of v) {
          lines.push(`${indent}  -`);
          walk(item as Record<string, unknown>, indent + '    ');
        }
      } else if (v && typeof v === 'object') {
        lines.push(`${indent}${k}:`);
        walk(v as Record<string, unknown>, indent + '  ');
      } else {
        lines.push(`${indent}${k}: ${String(v)}`);
      }
    }
  };
  walk(result, '');
  return write(process.stdout, lines.join('\n') + '\n');
}

async function execute(cmd: AdminCommand): Promise<AdminResult> {
  const config = parseConfig(process.env);
  const remote = await callAdminSocket(config.dataDir, cmd);
  if (remote) {
    if (!remote.ok) throw new CommandError(remote.error);
    return remote.result;
  }
  const release = acquireLock(config.dataDir);
  const app = await createApp({ config, log: createLogger(process.env.LOG_LEVEL ?? 'warn', 'parley-cli') });
  try {
    return await runAdminCommand(app, cmd);
  } finally {
    await app.close();
    release();
  }
}

class CommandError extends Error {}

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(process.argv.slice(2));
  } catch (e) {
    await write(process.stderr, `${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  try {
    const result = await execute(parsed.cmd);
    if (parsed.apirc && typeof result.api_key === 'string') {
      writeClientConfig(parsed.apirc, { email: String(result.email), key: result.api_key, site: String(result.site) });
      result.apirc = parsed.apirc;
    }
    if (parsed.json) await write(process.stdout, JSON.stringify(result) + '\n');
    else await printHuman(result);
    return 0;
  } catch (e) {
    const known = e instanceof CommandError || e instanceof LockedError || e instanceof ConfigError;
    const msg = known || (e as { name?: string }).name === 'ApiError' || (e as { name?: string }).name === 'ZodError'
      ? (e as Error).message
      : `Unexpected failure: ${(e as Error).stack ?? String(e)}`;
    if (parsed.json) await write(process.stdout, JSON.stringify({ error: msg }) + '\n');
    await write(process.stderr, `error: ${msg}\n`);
    return 1;
  }
}

main().then((code) => process.exit(code));
