// The only importer of uWebSockets.js: adapts its connections to dispatch() (DESIGN.md §3).
// - the request object dies at the first await, so everything dispatch needs is copied first;
// - every response registers onAborted; answers are written at the end of the turn (outbox.ts), corked;
// - bodies are bounded in size (413) and in time (408: slow clients cannot hold a request open);
// - a client that disconnects fires the request's Hangup (parked long-polls let go).
import * as uWS from 'uWebSockets.js';
import type { Logger } from 'pino';
import type { ApiRequest, ApiResponse, Dispatch, RequestHeader, RequestHeaders } from './dispatch.js';
import { errorResponse, Exchange } from './dispatch.js';
import { errors } from '../domain/errors.js';
import { HANGUP_FREE_BIT } from '../hangup.js';
import { Outbox } from './outbox.js';

export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  readonly log: Logger;
  readonly dispatch: Dispatch;
  /** WebSocket routes (path → handlers); see socket.ts for the contract. */
  readonly sockets?: Readonly<Record<string, SocketRoute>>;
}

/** A server-side WebSocket as the rest of Parley sees it (no uWS types leak out). */
export interface ServerSocket {
  /**
   * Sends a text frame (a Buffer holds UTF-8). Returns false when the send buffer is past its
   * bound (the caller closes the socket).
   */
  send(text: string | Buffer): boolean;
  close(code: number, reason: string): void;
  bufferedAmount(): number;
}

export interface SocketRoute {
  /** Decide from the upgrade request: null accepts, an ApiResponse refuses with it. */
  accept(req: ApiRequest): Promise<{ ok: true; session: SocketSession } | { ok: false; response: ApiResponse }>;
  readonly maxBackpressure: number;
}

export interface SocketSession {
  open(socket: ServerSocket): void;
  message(text: string): void;
  close(code: number): void;
}

export interface HttpServer {
  readonly port: number;
  /**
   * Stop accepting connections, and refuse new requests on those still open (503
   * SERVICE_UNAVAILABLE, then the connection closes) so that clients go to the next process.
   * Requests already running are left to finish.
   */
  stopListening(): void;
  /** Resolves once no request is running (parked ones included), or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void>;
  /** Write the answers still waiting for the end of the turn, then close every remaining connection. */
  closeAll(): void;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 101: 'Switching Protocols', 204: 'No Content', 301: 'Moved Permanently', 302: 'Found', 303: 'See Other',
  304: 'Not Modified', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 408: 'Request Timeout', 409: 'Conflict', 410: 'Gone', 413: 'Payload Too Large',
  415: 'Unsupported Media Type', 429: 'Too Many Requests', 500: 'Internal Server Error',
  503: 'Service Unavailable',
};
const statusLine = (s: number) => `${s} ${STATUS_TEXT[s] ?? 'Status'}`;

function writeResponse(res: uWS.HttpResponse, r: ApiResponse, closeConnection = false): void {
  res.cork(() => {
    res.writeStatus(statusLine(r.status));
    for (const [k, v] of Object.entries(r.headers)) res.writeHeader(k, v);
    res.end(r.body, closeConnection);
  });
}

/**
 * A request as dispatch() sees it. The client's address is read from uWS only if something asks
 * (rate limits of anonymous requests, password logins): the native call costs a few microseconds,
 * about a tenth of a whole presence report. uWS must not be touched once the client is gone: the
 * address of a request whose client left before it was asked for reads as ''.
 */
class UwsRequest implements ApiRequest {
  private address: string | null = null;
  /** Set once read, before dispatch. */
  body: Buffer | null = null;

  constructor(
    readonly method: string,
    readonly path: string,
    readonly query: string,
    readonly headers: Readonly<Record<string, string>>,
    readonly exchange: UwsExchange,
  ) {}

  get remoteAddress(): string {
    this.address ??= this.exchange.gone ? '' : Buffer.from(this.exchange.res.getRemoteAddressAsText()).toString();
    return this.address;
  }
}

/** A header's value, or undefined when the request has none (or an empty one). */
function header(req: uWS.HttpRequest, name: RequestHeader): string | undefined {
  const v = req.getHeader(name);
  return v === '' ? undefined : v;
}

/**
 * The headers Parley reads (RequestHeader), in one object of one shape. A function of its own:
 * a closure over them in the request handler would keep them as long as the handler's onAborted
 * lives.
 */
function readHeaders(req: uWS.HttpRequest): RequestHeaders {
  return {
    host: header(req, 'host'),
    authorization: header(req, 'authorization'),
    cookie: header(req, 'cookie'),
    'content-type': header(req, 'content-type'),
    'content-length': header(req, 'content-length'),
    'transfer-encoding': header(req, 'transfer-encoding'),
    'user-agent': header(req, 'user-agent'),
    'idempotency-key': header(req, 'idempotency-key'),
    origin: header(req, 'origin'),
  } satisfies Record<RequestHeader, string | undefined>;
}

/**
 * The bodies being read, with their deadlines, on one timer. Every body has the same time limit,
 * so the order they started in is the order they expire in: the timer waits for the oldest. A
 * Node timer per request cost each POST a Timeout, its closure, and the timer list's insert and
 * removal (7 % of Parley's time in the presence benchmark). A map in start order needs nothing of
 * the exchange, where the queues' Deadlines heap would need an index field on every one. The timer
 * is unref'd: the connections keep a server alive, and one left armed after the last body must not
 * keep a process up.
 *
 * Most bodies come in the packet of their headers: uWS hands them over before the event loop
 * turns. So a body is only noted when it starts, and enters the map at the end of that turn if it
 * is still being read: setting and deleting a map entry for every POST rebuilt the map's table
 * every few dozen requests (2 % of Parley's time in the typing benchmark).
 */
class BodyDeadlines {
  private readonly reading = new Map<UwsExchange, number>();
  /** The requests whose bodies started in this turn of the event loop (a body is set once read). */
  private started: UwsRequest[] = [];
  /** When the first of them started: the deadline of all of them (a turn earlier at most). */
  private startedAt = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly limitMs: number,
    private readonly expired: (x: UwsExchange) => void,
  ) {}

  add(request: UwsRequest): void {
    if (this.started.length === 0) {
      this.startedAt = performance.now();
      setImmediate(() => this.admit());
    }
    this.started.push(request);
  }

  /** The body came, or the request ended otherwise (no-op when it was not reading one). */
  delete(x: UwsExchange): void {
    if (this.reading.size > 0) this.reading.delete(x);
  }

  /** The bodies of this turn still being read get their deadline. */
  private admit(): void {
    const at = this.startedAt + this.limitMs;
    const started = this.started;
    this.started = [];
    for (const request of started) {
      if (!request.exchange.finished && request.body === null) this.reading.set(request.exchange, at);
    }
    if (!this.timer && this.reading.size > 0) this.arm(at - performance.now());
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.fire(), Math.max(0, ms));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = null;
    const now = performance.now();
    try {
      for (const [x, at] of this.reading) {
        if (at > now) break;
        this.reading.delete(x);
        this.expired(x);
      }
    } finally {
      // The rest keep their timer even if an answer threw.
      const oldest = this.reading.values().next();
      if (!oldest.done) this.arm(oldest.value - performance.now());
    }
  }
}

/**
 * What the requests of one server share: whether it drains, how many are running, the bodies
 * being read, and the answers waiting for the end of the turn.
 */
class Requests {
  draining = false;
  running = 0;
  onSettled: (() => void) | null = null;
  readonly outbox: Outbox<UwsExchange, ApiResponse>;

  constructor(
    readonly bodies: BodyDeadlines,
    log: Logger,
  ) {
    this.outbox = new Outbox(
      (x, r, close) => writeResponse(x.res, r, close),
      (err) => log.error({ err }, 'writing an answer failed'),
    );
  }

  done(): void {
    this.running--;
    if (this.running === 0) this.onSettled?.();
  }
}

/** UwsExchange's flag in Hangup's bits. */
const FINISHED = HANGUP_FREE_BIT;

/**
 * A request's exchange with its response not yet written: where dispatch() replies, and the
 * request's Hangup, so that a parked request is this one object (and uWS's response and abort
 * handler).
 */
abstract class UwsExchange extends Exchange {
  constructor(readonly res: uWS.HttpResponse) {
    super();
  }

  /** What the requests of its server share: on the prototype of the server's subclass, not a field of each. */
  protected abstract get requests(): Requests;

  /** Answered or aborted: `res` is not to be written again (a bit of Hangup's field). */
  get finished(): boolean {
    return (this.bits & FINISHED) !== 0;
  }

  private markFinished(): void {
    this.bits |= FINISHED;
  }

  /** dispatch()'s one answer. While draining, the connection closes after it: the client reconnects elsewhere. */
  reply(r: ApiResponse): void {
    try {
      this.finish(r, this.requests.draining);
    } finally {
      this.requests.done();
    }
  }

  /** The client went away: nothing may touch `res` any more. */
  abort(): void {
    this.markFinished();
    this.requests.bodies.delete(this);
    this.fire();
  }

  /** Answers once, at the end of the turn (outbox.ts); `close` ends the connection after it (drain, bad framing). */
  finish(r: ApiResponse, close: boolean): void {
    if (this.finished) return;
    this.markFinished();
    this.requests.bodies.delete(this);
    this.requests.outbox.add(this, r, close);
  }
}

interface SocketData {
  session: SocketSession;
  /** uWS throws on any use of a closed socket; every call checks this first. */
  closed: boolean;
}

export function startHttpServer(o: HttpServerOptions): Promise<HttpServer> {
  const app = uWS.App();
  const requests = new Requests(
    new BodyDeadlines(o.bodyTimeoutMs, (x) => x.finish(errorResponse(errors.requestTimeout()), true)),
    o.log,
  );
  class ServerExchange extends UwsExchange {
    protected get requests(): Requests {
      return requests;
    }
  }

  /** The dispatch of one request. Its request (headers and all) is referenced by dispatch alone. */
  const run = (x: UwsExchange, request: UwsRequest) => {
    requests.running++;
    try {
      o.dispatch(request, x);
    } catch (err) {
      // dispatch answers through its replier; a throw here is a bug, answered once as a 500.
      o.log.error({ err }, 'dispatch threw');
      x.finish(errorResponse(errors.internal('dispatch')), requests.draining);
      requests.done();
    }
  };

  /** The body, bounded in size and time, then run (a closure of its own: it holds the request). */
  const readBody = (x: UwsExchange, request: UwsRequest) => {
    const chunks: Buffer[] = [];
    let total = 0;
    requests.bodies.add(request);
    x.res.onData((ab, isLast) => {
      if (x.finished) return;
      total += ab.byteLength;
      if (total > o.maxBodyBytes) {
        x.finish(errorResponse(errors.bodyTooLarge(o.maxBodyBytes)), true);
        return;
      }
      chunks.push(Buffer.from(new Uint8Array(ab))); // copy: uWS reuses the chunk's memory
      if (isLast) {
        requests.bodies.delete(x);
        request.body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
        run(x, request);
      }
    });
  };

  app.any('/*', (res, req) => {
    if (requests.draining) {
      writeResponse(res, errorResponse(errors.unavailable('The server')), true);
      return;
    }
    const headers = readHeaders(req);
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const query = req.getQuery() ?? '';
    const x = new ServerExchange(res);
    res.onAborted(x.abort.bind(x)); // bound: no closure and context of this handler kept

    const length = headers['content-length'];
    const chunked = headers['transfer-encoding'] !== undefined;
    if (length !== undefined && !/^\d+$/.test(length)) {
      x.finish(errorResponse(errors.malformedBody('invalid Content-Length')), true);
      return;
    }
    if (length !== undefined && Number(length) > o.maxBodyBytes) {
      x.finish(errorResponse(errors.bodyTooLarge(o.maxBodyBytes)), true);
      return;
    }
    const request = new UwsRequest(method, path, query, headers, x);
    if ((length === undefined || length === '0') && !chunked) run(x, request);
    else readBody(x, request);
  });

  for (const [path, route] of Object.entries(o.sockets ?? {})) {
    app.ws<SocketData>(path, {
      maxPayloadLength: 64 * 1024,
      maxBackpressure: route.maxBackpressure,
      closeOnBackpressureLimit: true,
      idleTimeout: 120,
      sendPingsAutomatically: true,
      upgrade: (res, req, context) => {
        if (requests.draining) {
          writeResponse(res, errorResponse(errors.unavailable('The server')), true);
          return;
        }
        const headers = readHeaders(req);
        const key = req.getHeader('sec-websocket-key');
        const protocol = req.getHeader('sec-websocket-protocol');
        const extensions = req.getHeader('sec-websocket-extensions');
        const apiReq: ApiRequest = {
          method: 'GET',
          path: req.getUrl(),
          query: req.getQuery() ?? '',
          headers,
          body: null,
          remoteAddress: Buffer.from(res.getRemoteAddressAsText()).toString(),
        };
        let aborted = false;
        res.onAborted(() => (aborted = true));
        route.accept(apiReq).then(
          (r) => {
            if (aborted) return;
            if (!r.ok) return writeResponse(res, r.response);
            res.cork(() => res.upgrade<SocketData>({ session: r.session, closed: false }, key, protocol, extensions, context));
          },
          (err: unknown) => {
            o.log.error({ err }, 'socket upgrade failed');
            if (!aborted) writeResponse(res, errorResponse(errors.internal('upgrade')));
          },
        );
      },
      open: (ws) => {
        const data = ws.getUserData();
        data.session.open({
          send: (text) => !data.closed && ws.cork(() => ws.send(text, false)) !== undefined && ws.getBufferedAmount() <= route.maxBackpressure,
          close: (code, reason) => {
            if (!data.closed) ws.cork(() => ws.end(code, reason));
          },
          bufferedAmount: () => (data.closed ? 0 : ws.getBufferedAmount()),
        });
      },
      message: (ws, message) => ws.getUserData().session.message(Buffer.from(message).toString('utf8')),
      close: (ws, code) => {
        const data = ws.getUserData();
        data.closed = true;
        data.session.close(code);
      },
    });
  }

  return new Promise((resolve, reject) => {
    app.listen(o.host, o.port, (listenSocket) => {
      if (!listenSocket) {
        reject(new Error(`Cannot listen on ${o.host}:${o.port}`));
        return;
      }
      let listening = true;
      resolve({
        port: uWS.us_socket_local_port(listenSocket),
        stopListening() {
          if (listening) uWS.us_listen_socket_close(listenSocket);
          listening = false;
          requests.draining = true;
        },
        settled(timeoutMs) {
          if (requests.running === 0) return Promise.resolve();
          return new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, timeoutMs);
            requests.onSettled = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        },
        closeAll() {
          requests.outbox.flush(); // answers given in this turn go before the connections close
          app.close();
        },
      });
    });
  });
}
