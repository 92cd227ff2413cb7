// A minimal HTTP/1.1 keep-alive client connection for the load generators: one request at a time
// per connection, bodies framed by Content-Length or chunked encoding. Far cheaper per request
// than node:http, so the generator measures the server rather than itself.
import { connect, type Socket } from 'node:net';

export interface HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** A response: its status and its body's bytes, decoded only when read as text. */
export class HttpResponse {
  constructor(
    readonly status: number,
    readonly bytes: Buffer,
  ) {}

  get body(): string {
    return this.bytes.toString('utf8');
  }
}

const CRLF2 = Buffer.from('\r\n\r\n');

export function encodeRequest(r: HttpRequest, host: string): Buffer {
  let head = `${r.method} ${r.path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const [k, v] of Object.entries(r.headers ?? {})) head += `${k}: ${v}\r\n`;
  const body = r.body === undefined ? null : Buffer.from(r.body);
  if (body) head += `content-type: application/x-www-form-urlencoded\r\ncontent-length: ${body.length}\r\n`;
  else if (r.method !== 'GET') head += 'content-length: 0\r\n';
  head += '\r\n';
  return body ? Buffer.concat([Buffer.from(head), body]) : Buffer.from(head);
}

export class HttpConnection {
  private readonly socket: Socket;
  /** What has arrived of the response being read, and its size. */
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The response's whole size once its head says (Content-Length), else -1: read again on every chunk. */
  private expected = -1;
  private pending: { resolve: (r: HttpResponse) => void; reject: (e: Error) => void } | null = null;
  private closedError: Error | null = null;
  readonly ready: Promise<void>;

  constructor(port: number, localAddress: string, host = '127.0.0.1') {
    this.socket = connect({ port, host, localAddress });
    this.socket.setNoDelay(true);
    this.ready = new Promise((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('error', reject);
    });
    // A long-poll answer of a typing loop is some 200 KB, in chunks of 64 KB: joining every chunk
    // to what came before and parsing again copied it several times over.
    this.socket.on('data', (d: Buffer) => {
      this.chunks.push(d);
      this.buffered += d.length;
      if (this.expected < 0 || this.buffered >= this.expected) this.parse();
    });
    const fail = (e: Error) => {
      this.closedError = e;
      const p = this.pending;
      this.pending = null;
      p?.reject(e);
    };
    this.socket.on('error', fail);
    this.socket.on('close', () => fail(new Error('connection closed')));
  }

  /** Send one request (already encoded) and resolve with its response. */
  send(encoded: Buffer): Promise<HttpResponse> {
    if (this.closedError) return Promise.reject(this.closedError);
    if (this.pending) return Promise.reject(new Error('request already in flight'));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(encoded);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private parse(): void {
    const buf = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    this.chunks = [buf];
    const end = buf.indexOf(CRLF2);
    if (end < 0) return;
    const head = buf.subarray(0, end).toString('latin1');
    const status = Number(head.slice(9, 12));
    const lengthMatch = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    let body: Buffer;
    let consumed: number;
    if (lengthMatch) {
      consumed = end + 4 + Number(lengthMatch[1]);
      if (buf.length < consumed) {
        this.expected = consumed;
        return;
      }
      body = buf.subarray(end + 4, consumed);
    } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      const parts: Buffer[] = [];
      let at = end + 4;
      for (;;) {
        const lineEnd = buf.indexOf('\r\n', at);
        if (lineEnd < 0) return;
        const size = Number.parseInt(buf.subarray(at, lineEnd).toString('latin1'), 16);
        if (buf.length < lineEnd + 2 + size + 2) return;
        if (size === 0) {
          consumed = lineEnd + 4;
          break;
        }
        parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      body = Buffer.concat(parts);
    } else {
      body = Buffer.alloc(0);
      consumed = end + 4;
    }
    const rest = buf.subarray(consumed);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    this.expected = -1;
    const p = this.pending;
    this.pending = null;
    p?.resolve(new HttpResponse(status, body));
  }
}
