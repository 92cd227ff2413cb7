// The browser login page (GET/POST /login): a small form, no scripts. Signing in sets a session
// cookie that the site-root routes accept (uploaded files, avatars); the API never does.
import { escapeHtml } from 'markdown-it/lib/common/utils.mjs';
import type { RawResponse } from '../endpoint.js';
import { page } from './page.js';

export interface LoginForm {
  readonly realmName: string;
  readonly email?: string | undefined;
  /** Where to go after signing in (a path on this site). */
  readonly next?: string | undefined;
  readonly error?: string | undefined;
}

const hiddenNext = (next: string | undefined) => (next ? `<input type="hidden" name="next" value="${escapeHtml(next)}">` : '');

export function loginFormPage(f: LoginForm, status = 200, headers: Record<string, string> = {}): RawResponse {
  const error = f.error ? `<p class="error" role="alert">${escapeHtml(f.error)}</p>` : '';
  return page(
    status,
    `Sign in to ${f.realmName}`,
    `${error}<form method="post" action="/login">
<label for="email">Email</label><input id="email" name="email" type="email" required autocomplete="username" value="${escapeHtml(f.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" required autocomplete="current-password">
${hiddenNext(f.next)}<button type="submit">Sign in</button>
</form>`,
    headers,
  );
}

export function signedInPage(realmName: string, fullName: string, email: string): RawResponse {
  return page(
    200,
    realmName,
    `<p>You are signed in as <strong>${escapeHtml(fullName)}</strong> (${escapeHtml(email)}).</p>
<form method="post" action="/logout"><button type="submit">Sign out</button></form>`,
  );
}

export function crossSiteRefusedPage(): RawResponse {
  return page(403, 'Request refused', '<p>This form can only be sent from this site.</p>');
}
