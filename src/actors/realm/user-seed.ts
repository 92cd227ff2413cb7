// Bulk account creation for load tests and imports: thousands of members in one transaction
// (one INSERT for the users, one for their system-group memberships), instead of one command,
// transaction and group copy per user. Same checks and events as user.create, in bulk.
import { errors } from '../../domain/errors.js';
import { apiEmailFor, isValidEmail } from '../../domain/emails.js';
import { userGroupEvent } from '../../domain/events/user-group.js';
import { Role } from '../../domain/roles.js';
import { generateApiKey, hashApiKey, sealApiKey } from '../../domain/secrets.js';
import { directSystemGroups, isFullMember } from '../../domain/system-groups.js';
import { userSettingsSchema } from '../../domain/user-settings.js';
import { addMembersToGroups } from '../../store/groups.js';
import * as users from '../../store/users.js';
import type { RealmContext } from './actor.js';
import { toUserRecord } from './state.js';
import { userAddedEvent } from './users.js';

export interface CreateManyInput {
  /** Accounts to create (at most MAX_ACCOUNTS): email and full name each, all members without a password. */
  readonly accounts: ReadonlyArray<{ readonly email: string; readonly fullName: string }>;
}

export interface CreatedAccount {
  readonly id: number;
  readonly email: string;
  readonly apiKey: string;
}

/** One event row per account: more would pass the protocol's limit of parameters per statement. */
export const MAX_ACCOUNTS = 1000;

async function createMany(ctx: RealmContext, input: CreateManyInput): Promise<CreatedAccount[]> {
  const { state, services } = ctx;
  if (input.accounts.length > MAX_ACCOUNTS) throw errors.badRequest(`At most ${MAX_ACCOUNTS} accounts at once`);
  const seen = new Set<string>();
  for (const a of input.accounts) {
    const email = a.email.trim();
    if (!isValidEmail(email)) throw errors.badRequest(`Invalid email '${a.email}'`);
    const key = email.toLowerCase();
    if (seen.has(key) || state.userByEmail(email) || state.userByDeliveryEmail(email)) throw errors.emailInUse(email);
    seen.add(key);
  }
  const settings = userSettingsSchema.parse({ ...state.realm.settings.user_settings_defaults, timezone: '' });
  const keys = input.accounts.map(() => generateApiKey());
  const rows = input.accounts.map((a, i) => ({
    email: a.email.trim(),
    fullName: a.fullName,
    apiKeyHash: hashApiKey(services.secret, keys[i]!),
    apiKeySealed: sealApiKey(services.secret, keys[i]!),
  }));
  // New accounts are not yet full members when the organization has a waiting period.
  const now = services.clock.now();
  const groupIds = directSystemGroups(Role.member, isFullMember(now, state.realm.settings.waiting_period_threshold, now)).map((g) => state.systemGroupId(g));
  const created = await ctx.write(
    async (tx, emit) => {
      const inserted = await users.insertMembers(tx, state.id, Role.member, settings, rows, now);
      const apiEmails = inserted.map((r) => apiEmailFor(r.id, r.delivery_email, settings.email_address_visibility, state.realm.host));
      await users.setEmails(
        tx,
        inserted.filter((r, i) => apiEmails[i] !== r.email).map((r) => r.id),
        apiEmails.filter((e, i) => e !== inserted[i]!.email),
      );
      const records = inserted.map((r, i) => toUserRecord({ ...r, email: apiEmails[i]! }));
      const ids = records.map((r) => r.id);
      await addMembersToGroups(tx, groupIds, ids);
      for (const r of records) emit(userAddedEvent(r));
      for (const g of groupIds) emit(userGroupEvent.build({ op: 'add_members', group_id: g, user_ids: ids }, { userIds: null }));
      return records;
    },
    (records) => {
      for (const r of records) state.putUser(r);
      for (const id of groupIds) {
        const g = state.groups.get(id)!;
        state.putGroup({ ...g, members: new Set([...g.members, ...records.map((r) => r.id)]) });
      }
      ctx.realm.fullMembers.noteJoined(now);
    },
  );
  const byEmail = new Map(rows.map((r, i) => [r.email.toLowerCase(), keys[i]!]));
  return created.map((r) => ({ id: r.id, email: r.email, apiKey: byEmail.get(r.delivery_email.toLowerCase())! }));
}

export const userSeedCommands = {
  'user.createMany': createMany,
};
