// The socket layer: bounded bodies (413), slow clients (408), malformed framing, aborted
// requests; after each, the server keeps serving others.
import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pino } from 'pino';
import { startHttpServer, type HttpServer } from '../../src/http/uws.js';
import { httpRequest } from '../helpers/process.js';
import { startTestServer, type TestRealm, type TestServer } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let http: HttpServer;
let base: string;

/** Write raw bytes; resolve with everything the server sends until it closes (or timeoutMs). */
function raw(port: number, chunks: Array<string | Buffer>, o: { gapMs?: number; timeoutMs?: number } = {}): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
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
    sock.on('error', () => undefined);
    sock.on('connect', async () => {
      for (const c of chunks) {
        if (sock.destroyed) break;
        sock.write(c);
        if (o.gapMs) await new Promise((r) => setTimeout(r, o.gapMs));
      }
    });
  });
}

const t = suite('uWebSockets.js adapter');
t.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  http = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 4096,
    bodyTimeoutMs: 400,
    log: pino({ level: 'silent' }),
    dispatch: server.dispatch,
  });
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

t('an invalid Content-Length is a 400', async () => {
  const r = await raw(http.port, [`POST /api/v1/fetch_api_key HTTP/1.1\r\nHost: ${realm.host}\r\nContent-Length: 12abc\r\n\r\n`]);
  assert.ok(/^HTTP\/1\.1 400/.test(r.text) || r.closed, r.text);
  assert.is((await me()).status, 200);
});

t('a client that disconnects mid-body does not disturb the server', async () => {
  await raw(http.port, [`POST /api/v1/fetch_api_key HTTP/1.1\r\nHost: ${realm.host}\r\nContent-Length: 1000\r\n\r\nusername=`], { timeoutMs: 100 });
  assert.is((await me()).status, 200);
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

t.run();
