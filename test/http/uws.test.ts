// The socket layer: bounded bodies (413), slow clients (408), malformed framing, aborted
// requests; after each, the server keeps serving others. Stopping: running requests finish, new
// ones are refused.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { pino } from 'pino';
import { jsonResponse, type ApiRequest, type ApiResponse, type Dispatch, type Exchange } from '../../src/http/dispatch.js';
import { startHttpServer, type HttpServer } from '../../src/http/uws.js';
import { httpRequest } from '../helpers/process.js';
import { sendChunks } from '../helpers/raw-socket.js';
import { startTestServer, type TestRealm, type TestServer } from '../helpers/server.js';

/** A dispatcher from an async function of the request. */
const answering = (f: (req: ApiRequest, x: Exchange) => Promise<ApiResponse>): Dispatch => (req, x) => void f(req, x).then((res) => x.reply(res));

/** A server of its own around `dispatch`: bodies up to 4 KiB, each read within `bodyTimeoutMs`. */
const serve = (dispatch: Dispatch, bodyTimeoutMs = 1000): Promise<HttpServer> =>
  startHttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 4096, bodyTimeoutMs, log: pino({ level: 'silent' }), dispatch });

let server: TestServer;
let realm: TestRealm;
let http: HttpServer;
let base: string;

/** Write raw bytes; resolve with everything the server sends until it closes (or timeoutMs). */
function raw(port: number, chunks: Array<string | Buffer>, o: { gapMs?: number; timeoutMs?: number } = {}): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const sock = sendChunks(port, chunks, o.gapMs);
    let text = '';
    let closed = false;
    const done = () => resolve({ text, closed });
    const timer = setTimeout(() => {
      sock.destroy();
      done();
    }, o.timeoutMs ?? 3000);
    sock.on('data', (d) => (text += d.toString()));
    sock.on('close', () => {
      closed = true;
      clearTimeout(timer);
      done();
    });
  });
}

const t = suite('uWebSockets.js adapter');
t.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  http = await serve(server.dispatcher, 400);
  base = `http://127.0.0.1:${http.port}`;
});
t.after(async () => {
  http.stopListening();
  http.closeAll();
  await server.close();
});

const me = () =>
  httpRequest(`${base}/api/v1/users/me`, { headers: { authorization: realm.owner.auth, host: realm.host } }).then((r) => ({
    status: r.status,
    body: r.json() as Record<string, unknown>,
  }));

t('serves a request end to end', async () => {
  const r = await me();
  assert.is(r.status, 200);
  assert.is(r.body.user_id, realm.owner.id);
});

t('a body over the limit announced by Content-Length is a 413', async () => {
  const r = await raw(http.port, [`POST /api/v1/fetch_api_key HTTP/1.1\r\nHost: ${realm.host}\r\nContent-Length: 10000\r\n\r\n`]);
  assert.match(r.text, /^HTTP\/1\.1 413/);
  assert.match(r.text, /"code":"REQUEST_TOO_LARGE"/);
  assert.is((await me()).status, 200);
});

t('a chunked body growing past the limit is a 413', async () => {
  const chunk = 'a'.repeat(3000);
  const head = `POST /api/v1/fetch_api_key HTTP/1.1\r\nHost: ${realm.host}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\n`;
  const body = `${chunk.length.toString(16)}\r\n${chunk}\r\n`;
  const r = await raw(http.port, [head, body, body, body, '0\r\n\r\n'], { gapMs: 20 });
  assert.match(r.text, /^HTTP\/1\.1 413/);
  assert.is((await me()).status, 200);
});

t('a client that sends its body too slowly gets a 408 and is disconnected', async () => {
  const started = Date.now();
  const slow = raw(http.port, [`POST /api/v1/fetch_api_key HTTP/1.1\r\nHost: ${realm.host}\r\nContent-Length: 100\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nusername=a`], { timeoutMs: 5000 });
  // Meanwhile others are served.
  assert.is((await me()).status, 200);
  const r = await slow;
  assert.match(r.text, /^HTTP\/1\.1 408/);
  assert.match(r.text, /"code":"REQUEST_TIMEOUT"/);
  assert.ok(r.closed);
  assert.ok(Date.now() - started < 3000);
});

t('each body has its own time limit: one started later is cut after its own, one finished in time is served', async () => {
  const head = (length: number) => `POST /api/v1/fetch_api_key HTTP/1.1\r\nHost: ${realm.host}\r\nContent-Length: ${length}\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\n`;
  const slow = () => {
    const started = Date.now();
    return raw(http.port, [`${head(100)}username=a`], { timeoutMs: 5000 }).then((r) => ({ ...r, ms: Date.now() - started }));
  };
  const first = slow();
  await new Promise((r) => setTimeout(r, 250));
  const second = slow();
  // Sent in three parts over about 200 ms, across the moment the first body's time runs out.
  const body = 'username=nobody%40example.com&password=wrong';
  const inTime = raw(http.port, [head(body.length) + body.slice(0, 10), body.slice(10, 20), body.slice(20)], { gapMs: 100, timeoutMs: 5000 });
  const [a, b, c] = await Promise.all([first, second, inTime]);
  assert.match(a.text, /^HTTP\/1\.1 408/);
  assert.match(b.text, /^HTTP\/1\.1 408/);
  assert.ok(b.ms >= 380, `the later body had its own 400 ms (cut after ${b.ms} ms)`);
  assert.match(c.text, /^HTTP\/1\.1 \d{3} /);
  assert.not.match(c.text, /^HTTP\/1\.1 408/, 'the body finished in time was read');
});

t('an invalid Content-Length is a 400', async () => {
  const r = await raw(http.port, [`POST /api/v1/fetch_api_key HTTP/1.1\r\nHost: ${realm.host}\r\nContent-Length: 12abc\r\n\r\n`]);
  assert.ok(/^HTTP\/1\.1 400/.test(r.text) || r.closed, r.text);
  assert.is((await me()).status, 200);
});

t('a client that disconnects mid-body does not disturb the server', async () => {
  await raw(http.port, [`POST /api/v1/fetch_api_key HTTP/1.1\r\nHost: ${realm.host}\r\nContent-Length: 1000\r\n\r\nusername=`], { timeoutMs: 100 });
  assert.is((await me()).status, 200);
});

/** The parley_parked_long_polls gauge, read from GET /metrics. */
async function parked(): Promise<number> {
  const r = await realm.anonymous('GET', '/metrics');
  return Number(/^parley_parked_long_polls (\d+)$/m.exec(r.text)![1]);
}

t('a client that hangs up on a parked poll frees it at once; its queue stays', async () => {
  const { queue_id } = (await realm.owner.post('/api/v1/register', { fetch_event_types: [] })).json as { queue_id: string };
  const request = `GET /api/v1/events?queue_id=${queue_id} HTTP/1.1\r\nHost: ${realm.host}\r\nAuthorization: ${realm.owner.auth}\r\n\r\n`;
  const client = raw(http.port, [request], { timeoutMs: 300 }); // hangs up after 300 ms
  await new Promise((r) => setTimeout(r, 150));
  assert.is(await parked(), 1, 'parked');
  assert.is((await client).text, '', 'no answer before the hang-up');
  for (let i = 0; i < 100 && (await parked()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.is(await parked(), 0, 'freed after the hang-up');
  const r = await realm.owner.get('/api/v1/events', { queue_id, dont_block: true });
  assert.is(r.status, 200);
});

t('garbage instead of HTTP is dropped; others are served', async () => {
  await raw(http.port, [Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0x00, 0x00]), 'GET\r\n\r\n\r\n'], { timeoutMs: 500 });
  assert.is((await me()).status, 200);
});

t('parameters arrive through the socket layer in bodies and query strings', async () => {
  const res = await httpRequest(`${base}/api/v1/fetch_api_key?username=x`, {
    method: 'POST',
    headers: { host: realm.host, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'password=y',
  });
  assert.is(res.status, 401);
  assert.is(res.json().code, 'AUTHENTICATION_FAILED');
});

t('a request keeps the headers Parley reads: any case, the first of a repeated one, none empty', async () => {
  let seen: ApiRequest['headers'] | null = null;
  const echo = await serve(
    answering(async (req) => {
      seen = req.headers;
      return jsonResponse(200, { result: 'success', msg: '' });
    }),
  );
  try {
    const r = await raw(echo.port, [
      'POST /api/v1/x HTTP/1.1\r\nHOST: chat.example.test\r\nAuthorization: Basic one\r\nauthorization: Basic two\r\n' +
        'User-Agent: ZulipMobile/1.0\r\nIdempotency-Key: k-1\r\nOrigin:\r\nX-Other: dropped\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi',
    ], { timeoutMs: 300 });
    assert.match(r.text, /^HTTP\/1.1 200/);
    assert.equal(
      { ...seen! },
      {
        host: 'chat.example.test',
        authorization: 'Basic one',
        cookie: undefined,
        'content-type': 'text/plain',
        'content-length': '2',
        'transfer-encoding': undefined,
        'user-agent': 'ZulipMobile/1.0',
        'idempotency-key': 'k-1',
        origin: undefined,
      },
    );
  } finally {
    echo.stopListening();
    echo.closeAll();
  }
});

t.run();

/** A kept-alive connection that sends requests one by one and reads each answer. */
function connection(port: number, localAddress = '127.0.0.1') {
  const sock = connect({ port, host: '127.0.0.1', localAddress });
  let buffered = '';
  let closed = false;
  const waiting: Array<() => void> = [];
  const wake = () => waiting.splice(0).forEach((w) => w());
  sock.on('data', (d) => {
    buffered += d.toString();
    wake();
  });
  sock.on('close', () => {
    closed = true;
    wake();
  });
  sock.on('error', () => undefined);
  const opened = new Promise((r) => sock.once('connect', r));
  const ended = new Promise<boolean>((r) => {
    sock.once('close', () => r(true));
    setTimeout(() => r(false), 5_000).unref();
  });
  return {
    /** Resolves true once the server closed the connection (false after 5 s). */
    closed: () => ended,
    async get(path: string): Promise<string> {
      await opened;
      sock.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      while (!/\r\n\r\n[^]*\}/.test(buffered) && !closed) await new Promise<void>((r) => waiting.push(r));
      const answer = buffered;
      buffered = '';
      return answer;
    },
    end: () => sock.destroy(),
  };
}

const stopping = suite('uWebSockets.js adapter: stopping');

stopping('after stopListening, running requests finish, new ones on open connections get 503 and a close', async () => {
  let release!: () => void;
  let entered!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slowRunning = new Promise<void>((r) => (entered = r));
  const h = await serve(answering(async (req) => {
    if (req.path === '/slow') {
      entered();
      await gate;
    }
    return jsonResponse(200, { result: 'success', msg: '', path: req.path });
  }));
  const slow = connection(h.port);
  const kept = connection(h.port);
  assert.match(await kept.get('/fast'), /^HTTP\/1\.1 200/);
  const slowAnswer = slow.get('/slow');
  await slowRunning;

  h.stopListening();
  let settled = false;
  const allDone = h.settled(10_000).then(() => (settled = true));
  const refused = await kept.get('/fast');
  assert.match(refused, /^HTTP\/1\.1 503/);
  assert.match(refused, /"code":"SERVICE_UNAVAILABLE"/);
  assert.ok(await kept.closed(), 'the connection is closed after the refusal');
  assert.not.ok(settled, 'settled() waits for the running request');
  release();
  assert.match(await slowAnswer, /^HTTP\/1\.1 200[^]*"path":"\/slow"/);
  await allDone;
  slow.end();
  h.closeAll();
});

stopping('an answer given in the turn closeAll is called in is written before the connection closes', async () => {
  // Answers wait for the end of the turn (outbox.ts); closing in the same turn must not lose them.
  // Given from a timer, as a stopping server closes: outside uWS's handlers.
  const h: HttpServer = await serve((req, x) => {
    setTimeout(() => {
      x.reply(jsonResponse(200, { result: 'success', msg: '', path: req.path }));
      if (req.path === '/last') h.closeAll();
    });
  });
  const c = connection(h.port);
  assert.match(await c.get('/first'), /^HTTP\/1\.1 200[^]*"path":"\/first"/);
  assert.match(await c.get('/last'), /^HTTP\/1\.1 200[^]*"path":"\/last"/);
  assert.ok(await c.closed(), 'then the connection closes');
});

stopping.run();

const address = suite('uWebSockets.js adapter: the client address');

address('is read when dispatch asks, and reads as empty once the client has gone', async () => {
  let entered!: () => void;
  const inDispatch = new Promise<void>((r) => (entered = r));
  let leave!: () => void;
  const left = new Promise<void>((r) => (leave = r));
  let afterLeaving: string | null = null;
  const h = await serve(answering(async (req, x) => {
    if (req.path === '/leaving') {
      x.listen({ hungUp: leave });
      entered();
      await left;
      afterLeaving = req.remoteAddress;
    }
    return jsonResponse(200, { result: 'success', msg: '', address: req.remoteAddress });
  }));
  const fromTwo = connection(h.port, '127.0.0.2');
  assert.match(await fromTwo.get('/'), /"address":"127\.0\.0\.2"/);
  const fromThree = connection(h.port, '127.0.0.3');
  assert.match(await fromThree.get('/'), /"address":"127\.0\.0\.3"/);

  const leaving = connection(h.port, '127.0.0.4');
  void leaving.get('/leaving');
  await inDispatch;
  leaving.end();
  await h.settled(5_000);
  assert.is(afterLeaving, '');
  assert.match(await fromTwo.get('/'), /"address":"127\.0\.0\.2"/, 'the server keeps serving');
  fromTwo.end();
  fromThree.end();
  h.closeAll();
});

address.run();
