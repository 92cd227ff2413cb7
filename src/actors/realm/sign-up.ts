// An account an administrator makes for a person (POST /users): a member who starts where someone
// signing up without an invitation's channels would, subscribed to the organization's default
// channels. Welcome Bot's message and the announcement follow outside the actor (sends belong to
// the conversations' owners): src/http/endpoints/users.ts.
import { Role } from '../../domain/roles.js';
import type { RealmContext } from './actor.js';
import { subscribeNewAccount } from './invitation-channels.js';
import type { UserRecord } from './state.js';
import { userCommands } from './users.js';

export interface SignUpInput {
  readonly email: string;
  readonly fullName: string;
  /** scrypt hash made by the caller (never inside the actor). */
  readonly passwordHash: string;
}

export interface SignedUp {
  readonly user: UserRecord;
  /** What Welcome Bot should say to the new account ('' = nothing). */
  readonly welcomeText: string;
}

/** Create the member, then subscribe it to the default channels (two transactions, as a sign-up's). */
async function signUp(ctx: RealmContext, input: SignUpInput): Promise<SignedUp> {
  const { user } = await userCommands['user.create'](ctx, { email: input.email, fullName: input.fullName, role: Role.member, passwordHash: input.passwordHash });
  await subscribeNewAccount(ctx, user.id, [], true);
  return { user, welcomeText: ctx.state.realm.settings.welcome_message_custom_text };
}

export const signUpCommands = {
  'user.signUp': signUp,
};
