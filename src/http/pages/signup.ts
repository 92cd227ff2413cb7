// The sign-up page an invitation link opens: a small self-contained HTML form (no scripts),
// the page shown after the account is created, and the page for a link that cannot be used.
import { escapeHtml } from 'markdown-it/lib/common/utils.mjs';
import { RawResponse } from '../endpoint.js';

const HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

const STYLE = `body{font-family:system-ui,sans-serif;background:#f5f5f7;margin:0}main{max-width:26rem;margin:4rem auto;background:#fff;
padding:2rem;border-radius:8px;box-shadow:0 1px 4px #0002}label{display:block;margin:1rem 0 .25rem}input{width:100%;padding:.5rem;
box-sizing:border-box}button{margin-top:1.5rem;padding:.6rem 1.2rem}.error{color:#b00020}`;

function page(status: number, title: string, body: string): RawResponse {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>
`;
  return new RawResponse(status, HEADERS, html);
}

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

export function signupDonePage(realmName: string, realmUrl: string, email: string): RawResponse {
  return page(
    200,
    `Welcome to ${realmName}`,
    `<p>Your account <strong>${escapeHtml(email)}</strong> is ready.</p>
<p>Sign in at <a href="${escapeHtml(realmUrl)}">${escapeHtml(realmUrl)}</a> with your email and password.</p>`,
  );
}

export function inviteRefusedPage(problem: string, status: number): RawResponse {
  return page(status, 'Invitation not valid', `<p>${escapeHtml(problem)}</p><p>Ask the person who invited you for a new link.</p>`);
}
