// (ApiRequest) → Promise<ApiResponse>: routing, organization by Host, authentication, parameter
// validation, the handler, and the response envelope. No sockets here: uws.ts adapts a real
// connection and the tests call dispatch() directly. Errors are serialised in exactly one place.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { App } from '../app.js';
import { ApiError, errors, isApiError } from '../domain/errors.js';
import { authenticate } from './auth.js';
import { parseParams } from './body.js';
import { RawResponse, type Data, type Endpoint, type RequestContext } from './endpoint.js';
import { validateParams } from './params.js';
import { Router, type RouteTable } from './router.js';

export interface ApiRequest {
  readonly method: string;
  /** Path without the query string, still percent-encoded. */
  readonly path: string;
  readonly query: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | null;
  readonly remoteAddress: string;
  readonly signal?: AbortSignal | undefined;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
}

export type Dispatch = (req: ApiRequest) => Promise<ApiResponse>;

export const API_PREFIX = '/api/v1';
const JSON_TYPE = { 'Content-Type': 'application/json' };

export function jsonResponse(status: number, body: unknown, headers?: Record<string, string>): ApiResponse {
  return { status, headers: headers ? { ...JSON_TYPE, ...headers } : JSON_TYPE, body: JSON.stringify(body) };
}

export function errorResponse(e: ApiError): ApiResponse {
  return jsonResponse(e.status, e.toJSON(), e.headers);
}

export function successBody(data: Data, ignored: readonly string[]): Record<string, unknown> {
  const body: Record<string, unknown> = { result: 'success', msg: '', ...data };
  if (ignored.length > 0) body.ignored_parameters_unsupported = ignored;
  return body;
}

export function createDispatcher(app: App, tables: { api: RouteTable; site: RouteTable }): Dispatch {
  const api = new Router(tables.api);
  const site = new Router(tables.site);
  const { log } = app;

  return async function dispatch(req: ApiRequest): Promise<ApiResponse> {
    const started = performance.now();
    const requestId = randomUUID();
    let userId: number | null = null;
    let res: ApiResponse;
    try {
      const isApi = req.path === API_PREFIX || req.path.startsWith(API_PREFIX + '/');
      const found = (isApi ? api : site).match(isApi ? req.path.slice(API_PREFIX.length) : req.path);
      if (!found) throw errors.notFound();
      const endpoint = found.methods[req.method as keyof typeof found.methods];
      if (!endpoint) throw errors.methodNotAllowed(Object.keys(found.methods));

      const realm = await app.realms.resolve(req.headers.host);
      if (!realm && endpoint.realm === 'required') throw errors.realmNotFound();

      let user = null;
      const authorization = req.headers.authorization;
      if (endpoint.auth !== 'none' && realm) {
        if (authorization) user = authenticate(app.secret, realm, authorization);
        else if (endpoint.auth === 'user') throw errors.notLoggedIn();
      }
      userId = user?.id ?? null;

      const { params, files } = parseParams(req.query, req.body, req.headers['content-type']);
      Object.assign(params, found.pathParams);
      const { values, ignored } = validateParams(endpoint.params, params);
      const ctx: RequestContext = {
        app,
        realm,
        user,
        requestId,
        remoteAddress: req.remoteAddress,
        headers: req.headers,
        files,
        // Each request gets its own signal (parked polls listen on it; a shared one would pile up).
        signal: req.signal ?? new AbortController().signal,
        log,
      };
      const out = await (endpoint as Endpoint).handle(ctx, values);
      res = out instanceof RawResponse ? out : jsonResponse(200, successBody(out, ignored));
    } catch (e) {
      if (isApiError(e)) {
        res = errorResponse(e);
      } else {
        log.error({ err: e, requestId, method: req.method, path: req.path }, 'request failed');
        res = errorResponse(errors.internal(requestId));
      }
    }
    log.info(
      {
        requestId,
        method: req.method,
        path: req.path,
        status: res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        user: userId,
      },
      'request',
    );
    return res;
  };
}
