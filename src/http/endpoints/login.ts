// Browser sessions: GET /login (the form, or who is signed in), POST /login (email and password;
// a session cookie on success) and POST /logout. Password failures count against the same limits
// as POST /api/v1/fetch_api_key (one shared check). Served at the site root; the session they
// create is accepted only there (src/http/sessions.ts).
import { z } from 'zod';
import type { RealmHandle } from '../../actors/realm/actor.js';
import { isApiError } from '../../domain/errors.js';
import { publicEndpoint, RawResponse, type RequestContext } from '../endpoint.js';
import { crossSiteRefusedPage, loginFormPage, signedInPage } from '../pages/login.js';
import { p } from '../params.js';
import { checkPasswordLogin } from '../password-login.js';
import { endSession, startSession } from '../sessions.js';

const NEXT_MAX_LENGTH = 2000;

/** `next` when it is a path on this site (never another origin: no open redirect), else undefined. */
function safeNext(next: string | undefined): string | undefined {
  if (next === undefined || next.length > NEXT_MAX_LENGTH) return undefined;
  return /^\/(?![/\\])[^\s\\]*$/.test(next) ? next : undefined;
}

/**
 * Whether a form POST came from this site. Browsers send Origin with every POST; a different one
 * means another site submitted the form (login CSRF). Requests without Origin (non-browser
 * clients) are let through: they carry no ambient cookie worth forging.
 */
function sameOrigin(ctx: RequestContext & { realm: RealmHandle }): boolean {
  const origin = ctx.headers.origin;
  if (origin === undefined) return true;
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    return false;
  }
  return host === (ctx.headers.host ?? '').toLowerCase() || host === new URL(ctx.realm.state.realm.url).host.toLowerCase();
}

function seeOther(location: string, headers: Record<string, string> = {}): RawResponse {
  return new RawResponse(303, { Location: location, 'Cache-Control': 'no-store', ...headers }, '');
}

export const showLogin = publicEndpoint(z.object({ next: p.string().optional() }), async (ctx, q) => {
  const name = ctx.realm.state.realm.name;
  if (ctx.user) return signedInPage(name, ctx.user.full_name, ctx.user.delivery_email);
  return loginFormPage({ realmName: name, next: safeNext(q.next) });
});

export const submitLogin = publicEndpoint(
  z.object({ email: p.string({ trim: true }).default(''), password: p.string().default(''), next: p.string().optional() }),
  async (ctx, q) => {
    if (!sameOrigin(ctx)) return crossSiteRefusedPage();
    const form = { realmName: ctx.realm.state.realm.name, email: q.email, next: safeNext(q.next) };
    if (q.email === '' || q.password === '') return loginFormPage({ ...form, error: 'Please enter your email and password.' }, 400);
    let userId: number;
    try {
      userId = (await checkPasswordLogin(ctx.app, ctx.realm, ctx.remoteAddress, q.email, q.password)).user.id;
    } catch (e) {
      // Wrong password, rate limited, deactivated: the form again, with the API's status and words.
      if (isApiError(e)) return loginFormPage({ ...form, error: e.message }, e.status, e.headers);
      throw e;
    }
    const setCookie = await startSession(ctx.app, ctx.realm, userId);
    return seeOther(form.next ?? '/login', { 'Set-Cookie': setCookie });
  },
  'none',
);

export const logout = publicEndpoint(
  z.object({}),
  async (ctx) => {
    if (!sameOrigin(ctx)) return crossSiteRefusedPage();
    return seeOther('/login', { 'Set-Cookie': await endSession(ctx.app, ctx.realm, ctx.headers.cookie) });
  },
  'none',
);
