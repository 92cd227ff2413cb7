// Raw HTTP over a plain TCP socket, for tests of what no well-behaved client sends: split or
// truncated requests, pauses between bytes, broken framing.
import { connect, type Socket } from 'node:net';

/** Connect to the loopback port and write `chunks` in order, pausing `gapMs` between them. */
export function sendChunks(port: number, chunks: ReadonlyArray<string | Buffer>, gapMs = 0): Socket {
  const sock = connect(port, '127.0.0.1');
  sock.on('error', () => undefined); // a reset is an answer the caller reads as 'close'
  sock.on('connect', async () => {
    for (const c of chunks) {
      if (sock.destroyed) break;
      sock.write(c);
      if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
    }
  });
  return sock;
}
