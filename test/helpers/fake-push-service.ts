// A push service stand-in for tests: an HTTP server on a free local port that records every
// POST /notify body and answers with `status` (200 unless a test sets another).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakePushService {
  readonly url: string;
  readonly received: Array<{ path: string; body: Record<string, any> }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  status: number;
  /** Resolves when at least n requests arrived (fails after a timeout). */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFakePushService(): Promise<FakePushService> {
  const received: FakePushService['received'] = [];
  let service: FakePushService; // assigned once listening (the handler runs only after that)
  const server: Server = createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(data || '{}') as Record<string, unknown> });
      res.writeHead(service.status, { 'content-type': 'application/json' }).end(service.status === 200 ? '{"result":"success"}' : '{"result":"error"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  service = {
    url: `http://127.0.0.1:${port}`,
    received,
    status: 200,
    async waitFor(n, timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`push service got ${received.length} requests, expected ${n}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return service;
}
