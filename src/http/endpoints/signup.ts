// GET/POST /join/{key}/: the sign-up page of a reusable invitation link (served at the site
// root, as the invite_link points there). A revoked, expired or unknown link is refused; a
// successful sign-up signs the new account in on that browser.
import { z } from 'zod';
import { greetNewMember } from '../../actors/conversations/welcome.js';
import { inviteProblem } from '../../actors/realm/invitations.js';
import { isValidEmail } from '../../domain/emails.js';
import { isApiError } from '../../domain/errors.js';
import { hashPassword } from '../../domain/secrets.js';
import { findInviteByKey } from '../../store/invitations.js';
import { publicEndpoint } from '../endpoint.js';
import { p } from '../params.js';
import { inviteRefusedPage, signupDonePage, signupFormPage } from '../pages/signup.js';
import { startSession } from '../sessions.js';
import { checkEmailAllowed } from './users.js';

export const PASSWORD_MIN_LENGTH = 6;
export const PASSWORD_MAX_LENGTH = 100;

export const showSignup = publicEndpoint(
  z.object({ key: p.string() }),
  async (ctx, { key }) => {
    const invite = await findInviteByKey(ctx.app.db, ctx.realm.id, key);
    const problem = inviteProblem(invite, ctx.app.clock.now());
    if (problem) return inviteRefusedPage(problem, invite ? 410 : 404);
    return signupFormPage({ realmName: ctx.realm.state.realm.name, key, passwordMinLength: PASSWORD_MIN_LENGTH });
  },
  'none',
);

export const submitSignup = publicEndpoint(
  z.object({
    key: p.string(),
    email: p.string({ trim: true }).default(''),
    full_name: p.string({ trim: true }).default(''),
    password: p.string().default(''),
  }),
  async (ctx, params) => {
    const { realm, app } = ctx;
    const invite = await findInviteByKey(app.db, realm.id, params.key);
    const problem = inviteProblem(invite, app.clock.now());
    if (problem) return inviteRefusedPage(problem, invite ? 410 : 404);
    const form = { realmName: realm.state.realm.name, key: params.key, email: params.email, fullName: params.full_name, passwordMinLength: PASSWORD_MIN_LENGTH };
    const refuse = (error: string) => signupFormPage({ ...form, error }, 400);
    if (!isValidEmail(params.email)) return refuse('Please enter a valid email address.');
    if (params.full_name.length === 0) return refuse('Please enter your name.');
    if (params.password.length < PASSWORD_MIN_LENGTH || params.password.length > PASSWORD_MAX_LENGTH) {
      return refuse(`The password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long.`);
    }
    let accepted;
    try {
      // An invitation link lets anyone with it join, but only from the organization's allowed
      // domains when it restricts them (emails_restricted_to_domains), as POST /users.
      await checkEmailAllowed(app.db, realm.state, params.email);
      const passwordHash = await hashPassword(params.password);
      accepted = await realm.ask('invite.acceptMultiuse', { key: params.key, email: params.email, fullName: params.full_name, passwordHash });
    } catch (e) {
      if (isApiError(e)) return refuse(e.message);
      throw e;
    }
    // The account exists now: a failed greeting is logged, not shown as a failed sign-up.
    await greetNewMember(realm, accepted.user, accepted.welcomeText, ctx.log);
    const setCookie = await startSession(app, realm, accepted.user.id);
    return signupDonePage(realm.state.realm.name, realm.state.realm.url, accepted.user.delivery_email, setCookie);
  },
  'none',
);
