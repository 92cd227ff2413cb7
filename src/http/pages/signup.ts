// The sign-up page an invitation link opens: a small self-contained HTML form (no scripts),
// the page shown after the account is created (and signed in), and the page for a link that
// cannot be used.
import { escapeHtml } from 'markdown-it/lib/common/utils.mjs';
import type { RawResponse } from '../endpoint.js';
import { page } from './page.js';

export interface SignupForm {
  readonly realmName: string;
  readonly key: string;
  readonly email?: string | undefined;
  readonly fullName?: string | undefined;
  readonly error?: string | undefined;
  readonly passwordMinLength: number;
}

export function signupFormPage(f: SignupForm, status = 200): RawResponse {
  const error = f.error ? `<p class="error" role="alert">${escapeHtml(f.error)}</p>` : '';
  return page(
    status,
    `Join ${f.realmName}`,
    `<p>You have been invited to ${escapeHtml(f.realmName)}. Create your account:</p>
${error}<form method="post" action="/join/${encodeURIComponent(f.key)}/">
<label for="email">Email</label><input id="email" name="email" type="email" required autocomplete="email" value="${escapeHtml(f.email ?? '')}">
<label for="full_name">Full name</label><input id="full_name" name="full_name" required maxlength="100" autocomplete="name" value="${escapeHtml(f.fullName ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" required minlength="${f.passwordMinLength}" autocomplete="new-password">
<button type="submit">Create account</button>
</form>`,
  );
}

/** After sign-up: the new account is signed in on this browser (`setCookie` starts its session). */
export function signupDonePage(realmName: string, realmUrl: string, email: string, setCookie: string): RawResponse {
  return page(
    200,
    `Welcome to ${realmName}`,
    `<p>Your account <strong>${escapeHtml(email)}</strong> is ready, and you are signed in on this browser.</p>
<p>Apps sign in at <a href="${escapeHtml(realmUrl)}">${escapeHtml(realmUrl)}</a> with your email and password.</p>`,
    { 'Set-Cookie': setCookie },
  );
}

export function inviteRefusedPage(problem: string, status: number): RawResponse {
  return page(status, 'Invitation not valid', `<p>${escapeHtml(problem)}</p><p>Ask the person who invited you for a new link.</p>`);
}
