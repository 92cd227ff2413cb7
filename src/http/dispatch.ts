// (ApiRequest, reply) → one ApiResponse: routing, organization by Host, authentication, parameter
// validation, the handler, and the response envelope. No sockets here: uws.ts adapts a real
// connection and the tests call dispatch() directly. Errors are serialised in exactly one place.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { RealmHandle } from '../actors/realm/actor.js';
import type { UserRecord } from '../actors/realm/state.js';
import type { App } from '../app.js';
import { ApiError, errors, isApiError } from '../domain/errors.js';
import { RawJson } from '../domain/raw-json.js';
import { Hangup } from '../hangup.js';
import { smallMoment, smallSince } from '../small-time.js';
import { isDatabaseUnavailable } from '../store/database.js';
import { authenticate } from './auth.js';
import { parseParams, type UploadedFile } from './body.js';
import { Later, RawResponse, type Answer, type Data, type Endpoint, type LaterAnswer, type RequestContext } from './endpoint.js';
import { validateParams } from './params.js';
import { Refused, type TokenBucket } from './rate-limit.js';
import { Router, type RouteTable } from './router.js';
import { sessionUser } from './sessions.js';

/**
 * The request headers Parley reads (lower-case names): a request keeps these alone. Read one by
 * one from uWS, they cost a presence report a few percent less than every header copied into an
 * object (a call into JavaScript per header, and a key looked up in V8's string table for each);
 * a header not listed here is a compile error where it is read. Of a repeated header, the first.
 */
export type RequestHeader =
  | 'host'
  | 'authorization'
  | 'cookie'
  | 'content-type'
  | 'content-length'
  | 'transfer-encoding'
  | 'user-agent'
  | 'idempotency-key'
  | 'origin';
export type RequestHeaders = Readonly<Partial<Record<RequestHeader, string>>>;

export interface ApiRequest {
  readonly method: string;
  /** Path without the query string, still percent-encoded. */
  readonly path: string;
  readonly query: string;
  readonly headers: RequestHeaders;
  readonly body: Buffer | null;
  readonly remoteAddress: string;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
}

/**
 * Answers a request through `x.reply`, called exactly once. The exchange is an object, not a
 * promise or a closure: a parked long-poll then waits as that one object (see Later).
 */
export type Dispatch = (req: ApiRequest, x: Exchange) => void;

export const API_PREFIX = '/api/v1';
const JSON_TYPE = { 'Content-Type': 'application/json' };

export function jsonResponse(status: number, body: unknown, headers?: Record<string, string>): ApiResponse {
  return { status, headers: headers ? { ...JSON_TYPE, ...headers } : JSON_TYPE, body: JSON.stringify(body) };
}

export function errorResponse(e: ApiError): ApiResponse {
  return jsonResponse(e.status, e.toJSON(), e.headers);
}

const SUCCESS_HEAD = '"result":"success","msg":""';

/**
 * `{"result":"success","msg":"", ...data}` and the ignored parameters, as JSON. The members are
 * written after a fixed head rather than spread into a new object: copying a register answer's
 * hundred-odd members cost more than serializing them.
 */
export function serializeSuccess(data: Data, ignored: readonly string[]): string | Buffer {
  const tail = ignored.length > 0 ? `"ignored_parameters_unsupported":${JSON.stringify(ignored)}` : '';
  // An endpoint's own msg (or result) takes the place of the default, as in a spread.
  if (Object.hasOwn(data, 'result') || Object.hasOwn(data, 'msg') || (tail && Object.hasOwn(data, 'ignored_parameters_unsupported'))) {
    const body: Record<string, unknown> = { result: 'success', msg: '', ...data };
    if (tail) body.ignored_parameters_unsupported = ignored;
    return serializeBody(body);
  }
  return serializeBody(data, SUCCESS_HEAD, tail);
}

/**
 * JSON.stringify, except that top-level RawJson values are spliced in: the body is then UTF-8
 * bytes in one buffer, sized first, into which each raw part writes itself (never made into a
 * string, and copied once: a long-poll answer of thousands of events was built, then copied).
 * `head` and `tail` are members already in JSON, written before and after the body's own.
 */
export function serializeBody(body: Record<string, unknown>, head = '', tail = ''): string | Buffer {
  let raw = false;
  for (const k in body) if (body[k] instanceof RawJson) raw = true;
  if (!raw) {
    const json = JSON.stringify(body);
    if (!head && !tail) return json;
    let out = `{${head}`;
    if (json.length > 2) out += `${head ? ',' : ''}${json.slice(1, -1)}`;
    if (tail) out += `${out.length > 1 ? ',' : ''}${tail}`;
    return `${out}}`;
  }
  // Text between the raw parts: texts[i] comes before raws[i], the last text ends the body.
  const texts: string[] = [];
  const raws: RawJson[] = [];
  let text = `{${head}`;
  let first = head === '';
  for (const [k, v] of Object.entries(body)) {
    if (v === undefined) continue;
    if (!first) text += ',';
    first = false;
    text += `${JSON.stringify(k)}:`;
    if (v instanceof RawJson) {
      texts.push(text);
      raws.push(v);
      text = '';
    } else text += JSON.stringify(v);
  }
  texts.push(`${text}${tail && !first ? ',' : ''}${tail}}`);
  let size = 0;
  for (const t of texts) size += Buffer.byteLength(t);
  for (const r of raws) size += r.byteLength;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < raws.length; i++) {
    at += out.write(texts[i]!, at);
    raws[i]!.write(out, at);
    at += raws[i]!.byteLength;
  }
  out.write(texts[raws.length]!, at);
  return out;
}

/** Count the request against its user's (or, anonymous, its address's) limit; 429 when over. */
function checkRate(app: App, key: string | number, authenticated: boolean): TokenBucket | null {
  const limiter = authenticated ? app.requestLimits.perUser : app.requestLimits.perIp;
  if (!limiter) return null;
  const taken = limiter.take(key);
  if (taken instanceof Refused) throw Object.assign(errors.rateLimited(taken.bucket.decision().retryAfter), { rate: taken.bucket });
  return taken;
}

/** The answer with the rate headers of its request's bucket as it is now. */
function withRateHeaders(res: ApiResponse, bucket: TokenBucket): ApiResponse {
  const d = bucket.decision();
  return {
    ...res,
    headers: {
      ...res.headers,
      'X-RateLimit-Limit': String(d.limit),
      'X-RateLimit-Remaining': String(d.remaining),
      'X-RateLimit-Reset': String(d.resetAt),
    },
  };
}

/** A handler's view of its request. */
class Context implements RequestContext {
  constructor(
    readonly app: App,
    readonly realm: RealmHandle | null,
    readonly user: UserRecord | null,
    private readonly req: ApiRequest,
    readonly files: readonly UploadedFile[],
    readonly log: Logger,
  ) {}

  get headers(): Readonly<Record<string, string>> {
    return this.req.headers;
  }

  /** Read only if the handler asks: uws.ts gets it with a native call. */
  get remoteAddress(): string {
    return this.req.remoteAddress;
  }
}

const NONE_IGNORED: readonly string[] = Object.freeze([]);

/** Where an exchange's answer given later ends: the dispatcher that owes it one. */
interface Owner {
  answerLater(x: Exchange, out: Data | ApiError): void;
}

/**
 * One request and its one answer: the bookkeeping of dispatch() for the envelope, metrics and log
 * line, and the request's Hangup (its client going away). The transport subclasses it with where
 * the answer is written (`reply`: uws.ts, the response not yet written), so a request is one
 * object from its first byte to its answer: a parked long-poll waits as this exchange and uWS's
 * response (as two objects, dispatch's and the transport's, it cost 24 bytes more, and its queue
 * kept the hang-up apart from the answer). It holds the request only until the request is counted.
 */
/**
 * An exchange's start is kept in 1/64 ms (15.6 µs) as a small integer, not performance.now()'s
 * double: one of those boxed was 16 bytes more a parked poll. Durations are right up to 2^30
 * ticks, 4.6 hours; no request lasts that long (a parked poll is answered within a heartbeat).
 */
const TICKS_PER_MS = 64;
const requestTicks = () => smallMoment(performance.now() * TICKS_PER_MS);

export abstract class Exchange extends Hangup implements LaterAnswer {
  /** Made only when a log line or an error answer needs it. */
  requestId: string | undefined = undefined;
  userId: number | null = null;
  /** The rate limit's bucket the request was counted in (its headers are read from it when answered). */
  rate: TokenBucket | null = null;
  route = 'unmatched';
  ignored: readonly string[] = NONE_IGNORED;
  /** Set until the request is counted against a rate limit (uncounted failures count by address). */
  req: ApiRequest | null = null;
  method = '';
  /** The request's path; the route's own string when they are equal (a parked poll keeps no copy). */
  path = '';
  /** When dispatch() started it: a small moment (small-time.ts) in 1/TICKS_PER_MS milliseconds of performance.now(). */
  started = 0;
  /**
   * The dispatcher that owes the answer: set by dispatch(), null once the answer went (a second
   * one, say after a bug, is dropped, and not counted).
   */
  private owner: Owner | null = null;

  /** Writes the answer: the transport's part, called at most once, by the dispatcher. */
  abstract reply(res: ApiResponse): void;

  /** dispatch() starts with this. */
  start(owner: Owner, req: ApiRequest): void {
    this.started = requestTicks();
    this.req = req;
    this.method = req.method;
    this.path = req.path;
    this.owner = owner;
  }

  get replied(): boolean {
    return this.owner === null;
  }

  /** A Later's answer: the exchange itself waits with a parked poll, no closure over it. */
  answer(out: Data | ApiError): void {
    this.owner?.answerLater(this, out);
  }

  send(res: ApiResponse): void {
    if (this.owner === null) return;
    this.owner = null;
    this.reply(res);
  }
}

export function createDispatcher(app: App, tables: { api: RouteTable; site: RouteTable }): Dispatch {
  const api = new Router(tables.api, API_PREFIX);
  const site = new Router(tables.site);
  const { log } = app;
  const outage = { loggedAt: -Infinity, suppressed: 0 };

  /**
   * Everything up to the handler, whose promise is returned, not awaited: a parked long-poll then
   * holds no suspended frame of the dispatcher, its request or its context.
   */
  async function begin(x: Exchange, req: ApiRequest): Promise<Answer> {
    const isApi = req.path === API_PREFIX || req.path.startsWith(API_PREFIX + '/');
    const found = (isApi ? api : site).match(isApi ? req.path.slice(API_PREFIX.length) : req.path);
    if (!found) throw errors.notFound();
    x.route = found.route;
    if (x.path === x.route) x.path = x.route;
    const endpoint = found.methods[req.method as keyof typeof found.methods];
    if (!endpoint) throw errors.methodNotAllowed(Object.keys(found.methods));

    const realm = await app.realms.resolve(req.headers.host);
    if (!realm && endpoint.realm === 'required') throw errors.realmNotFound();

    let user = null;
    const authorization = req.headers.authorization;
    if (endpoint.auth !== 'none' && realm) {
      if (authorization) user = authenticate(app.secret, realm, authorization);
      // A browser session counts only at the site root: /api/v1 takes explicit credentials.
      else if (!isApi) user = await sessionUser(app, realm, req.headers.cookie);
      if (!user && endpoint.auth === 'user') throw errors.notLoggedIn();
    }
    x.userId = user?.id ?? null;
    x.req = null;
    // A user by id (ids are unique across organizations: no key string made per request).
    x.rate = checkRate(app, user ? user.id : req.remoteAddress, user !== null);

    const { params, files } = parseParams(req.query, req.body, req.headers['content-type']);
    Object.assign(params, found.pathParams);
    const { values, ignored } = validateParams(endpoint.params, params);
    x.ignored = ignored;
    const ctx = new Context(app, realm, user, req, files, log);
    return (endpoint as Endpoint).handle(ctx, values);
  }

  function failure(x: Exchange, thrown: unknown): ApiResponse {
    let e = thrown;
    // Requests that failed before being counted (unknown routes, bad credentials) count against
    // the client's address, so guessing keys is limited like any anonymous traffic.
    if (x.req) {
      try {
        x.rate = checkRate(app, x.req.remoteAddress, false);
      } catch (limited) {
        e = limited;
      }
      x.req = null;
    }
    if (isApiError(e)) {
      const refused = (e as { rate?: TokenBucket }).rate;
      if (refused) x.rate = refused;
      return errorResponse(e);
    }
    if (isDatabaseUnavailable(e)) {
      // During an outage every request fails alike: one line a second, with the count.
      const now = performance.now();
      if (now - outage.loggedAt >= 1000) {
        log.warn({ requestId: (x.requestId ??= randomUUID()), err: (e as Error).message, alike: outage.suppressed }, 'database unavailable');
        outage.loggedAt = now;
        outage.suppressed = 0;
      } else outage.suppressed++;
      return errorResponse(errors.unavailable('The database'));
    }
    x.requestId ??= randomUUID();
    log.error({ err: e, requestId: x.requestId, method: x.method, path: x.path }, 'request failed');
    return errorResponse(errors.internal(x.requestId));
  }

  function success(x: Exchange, out: Data | RawResponse): ApiResponse {
    try {
      return out instanceof RawResponse ? out : { status: 200, headers: JSON_TYPE, body: serializeSuccess(out, x.ignored) };
    } catch (e) {
      return failure(x, e);
    }
  }

  /** The answer with its rate headers, counted and logged, then sent: once. */
  function finish(x: Exchange, answer: ApiResponse): void {
    if (x.replied) return;
    const res = x.rate ? withRateHeaders(answer, x.rate) : answer;
    const seconds = smallSince(x.started, requestTicks()) / TICKS_PER_MS / 1000;
    app.metrics.request(x.route, x.method, res.status, seconds);
    if (res.status === 429) app.metrics.rateLimited.inc();
    if (log.isLevelEnabled('info')) {
      log.info(
        {
          requestId: x.requestId ?? randomUUID(),
          method: x.method,
          path: x.path,
          status: res.status,
          ms: Math.round(seconds * 10_000) / 10,
          user: x.userId,
        },
        'request',
      );
    }
    x.send(res);
  }

  /** The handler's answer; a Later is handed the exchange, which is then what waits. */
  function answer(x: Exchange, out: Answer): void {
    if (!(out instanceof Later)) {
      finish(x, success(x, out));
      return;
    }
    try {
      out.start(x);
    } catch (e) {
      finish(x, failure(x, e));
    }
  }

  /** A Later's answer ends here: one object per dispatcher, not a field per exchange. */
  const owner: Owner = {
    answerLater: (x, later) => finish(x, isApiError(later) ? failure(x, later) : success(x, later)),
  };

  return function dispatch(req: ApiRequest, x: Exchange): void {
    x.start(owner, req);
    begin(x, req)
      .then(
        (out) => answer(x, out),
        (thrown: unknown) => finish(x, failure(x, thrown)),
      )
      // A bug in the envelope itself (the metrics, the log line): answered plainly, once.
      .catch((err: unknown) => {
        log.error({ err, method: x.method, path: x.path }, 'dispatch failed');
        x.send(errorResponse(errors.internal('dispatch')));
      });
  };
}
