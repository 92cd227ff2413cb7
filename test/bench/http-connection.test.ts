// The load generators' HTTP client (bench/load/http-connection.ts) reads each response whole, however
// its bytes arrive: in one piece, a byte at a time, or in pieces of any size; framed by
// Content-Length or chunked; one answer after another on the same connection.
import { createServer, type Server, type Socket } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeRequest, HttpConnection } from '../../bench/load/http-connection.js';

const t = suite('bench: the generators’ HTTP connection');

/** A server that answers the n-th request with `answers[n]`, written in the pieces `split` cuts it into. */
async function serve(answers: string[], split: (bytes: Buffer) => Buffer[]): Promise<{ server: Server; port: number }> {
  const server = createServer((socket: Socket) => {
    let n = 0;
    socket.on('data', async (d) => {
      // One request per data event here: the client sends each whole and waits for its answer.
      if (!d.includes('\r\n\r\n')) return;
      for (const piece of split(Buffer.from(answers[n++]!))) {
        socket.write(piece);
        await new Promise((r) => setImmediate(r)); // separate reads on the client's side
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port };
}

/** `p`, or a rejection after `ms` (a client that misreads the framing waits for bytes that never come). */
function orTimeout<T>(ms: number, p: Promise<T>): Promise<T> {
  let timer!: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const lengthFramed = (body: string) => `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const chunked = (parts: string[]) =>
  `HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n${parts.map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`).join('')}0\r\n\r\n`;

const BIG = JSON.stringify({ events: Array.from({ length: 3000 }, (_, id) => ({ type: 'typing', op: 'start', topic: 'ünïcödé ✓', id })) });
const ANSWERS = [lengthFramed('{"result":"success"}'), lengthFramed(BIG), chunked(['{"result":', '"error"}']), lengthFramed(''), lengthFramed('ü')];
const EXPECTED = [
  { status: 200, body: '{"result":"success"}' },
  { status: 200, body: BIG },
  { status: 404, body: '{"result":"error"}' },
  { status: 200, body: '' },
  { status: 200, body: 'ü' },
];

const SPLITS: Record<string, (b: Buffer) => Buffer[]> = {
  whole: (b) => [b],
  // Byte by byte through every head and the start of every body, then in pieces of 4,093 bytes.
  'a byte at a time, then in odd pieces': (b) => {
    const pieces = Array.from({ length: Math.min(b.length, 300) }, (_, i) => b.subarray(i, i + 1));
    for (let at = 300; at < b.length; at += 4093) pieces.push(b.subarray(at, at + 4093));
    return pieces;
  },
  'in 64 KiB pieces': (b) => Array.from({ length: Math.ceil(b.length / 65536) }, (_, i) => b.subarray(i * 65536, (i + 1) * 65536)),
  'split inside the blank line after the head, the body in three': (b) => {
    const head = b.indexOf('\r\n\r\n') + 2;
    const third = Math.ceil((b.length - head) / 3);
    return [b.subarray(0, head), b.subarray(head, head + third), b.subarray(head + third, head + 2 * third), b.subarray(head + 2 * third)];
  },
};

for (const [name, split] of Object.entries(SPLITS)) {
  t(`answers read whole, written ${name}`, async () => {
    const { server, port } = await serve(ANSWERS, split);
    const conn = new HttpConnection(port, '127.0.0.1');
    try {
      await conn.ready;
      for (const expected of EXPECTED) {
        const res = await orTimeout(5000, conn.send(encodeRequest({ method: 'GET', path: '/' }, '127.0.0.1')));
        assert.equal({ status: res.status, body: res.body }, expected);
        assert.ok(res.bytes.equals(Buffer.from(expected.body)), 'the bytes are the body as UTF-8');
      }
    } finally {
      conn.close();
      server.close();
    }
  });
}

t.run();
