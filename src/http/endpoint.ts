// What an endpoint is: who may call it, the schema of its parameters (path, query and body
// together) and a handler from parsed parameters to response data. Handlers parse nothing by hand
// and write no SQL for mutations: they ask the owning actor.
import type { z } from 'zod';
import type { App } from '../app.js';
import type { RealmHandle } from '../actors/realm/actor.js';
import type { UserRecord } from '../actors/realm/state.js';
import type { UploadedFile } from './body.js';
import type { ParamShape } from './params.js';
import type { Logger } from 'pino';
import type { HangupSource } from '../hangup.js';
import type { ApiError } from '../domain/errors.js';
import type { RequestHeaders } from './dispatch.js';

/**
 * - `user`: HTTP Basic credentials required (at the site root, a browser session also counts);
 * - `optional`: credentials (or, at the site root, a session) used when present (public access);
 * - `none`: never authenticated.
 */
export type AuthMode = 'user' | 'optional' | 'none';

export interface RequestContext {
  readonly app: App;
  /** The organization of the request's Host (null only for endpoints with realm: 'optional'). */
  readonly realm: RealmHandle | null;
  readonly user: UserRecord | null;
  readonly remoteAddress: string;
  readonly headers: RequestHeaders;
  readonly files: readonly UploadedFile[];
  readonly log: Logger;
}

/** A context whose endpoint requires an authenticated user in an organization. */
export interface UserContext extends RequestContext {
  readonly realm: RealmHandle;
  readonly user: UserRecord;
}

/** A response that is not the API's JSON envelope (files, HTML pages, redirects). */
export class RawResponse {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string | Buffer,
  ) {}
}

export type Data = Record<string, unknown>;

/**
 * Where a Later's answer goes: once, with the data or an ApiError. It is the request's hangup
 * too: a parked long-poll listens to it for its client going away (see Hangup).
 */
export interface LaterAnswer extends HangupSource {
  answer(out: Data | ApiError): void;
}

/**
 * An answer the handler gives later, not through a promise (a parked long-poll): what waits with
 * it is then an object or two, not a chain of promises and their reactions, nor closures. `start`
 * runs once, at once, and is handed where the answer goes.
 */
export class Later {
  constructor(readonly start: (to: LaterAnswer) => void) {}
}

export type Answer = Data | RawResponse | Later;

export interface Endpoint<S extends ParamShape = ParamShape, C extends RequestContext = RequestContext> {
  readonly auth: AuthMode;
  /** Whether the request must resolve to an organization (default true). */
  readonly realm: 'required' | 'optional';
  readonly params: z.ZodObject<S>;
  readonly handle: (ctx: C, params: z.output<z.ZodObject<S>>) => Promise<Answer>;
}

export function userEndpoint<S extends ParamShape>(
  params: z.ZodObject<S>,
  handle: (ctx: UserContext, params: z.output<z.ZodObject<S>>) => Promise<Answer>,
): Endpoint<S, UserContext> {
  return { auth: 'user', realm: 'required', params, handle };
}

export function publicEndpoint<S extends ParamShape>(
  params: z.ZodObject<S>,
  handle: (ctx: RequestContext & { realm: RealmHandle }, params: z.output<z.ZodObject<S>>) => Promise<Data | RawResponse>,
  auth: 'optional' | 'none' = 'optional',
): Endpoint<S, RequestContext & { realm: RealmHandle }> {
  return { auth, realm: 'required', params, handle };
}

export function serverEndpoint<S extends ParamShape>(
  params: z.ZodObject<S>,
  handle: (ctx: RequestContext, params: z.output<z.ZodObject<S>>) => Promise<Data | RawResponse>,
): Endpoint<S> {
  return { auth: 'none', realm: 'optional', params, handle };
}
