// The embedded database's loopback socket: PGlite speaks the Postgres wire protocol, and this
// serves it to slonik's driver, one client session at a time.
//
// Why not @electric-sql/pglite-socket (0.2.17, which we used before): PGlite is one session, so it
// had to run with maxConnections 1, and then it *refuses* a connection that arrives while the
// previous one is still closing ("Too many connections"). slonik destroys its connection whenever
// a pooled callback throws (every write refused inside its transaction) and opens the next one
// at once, before the old socket has closed: that one was refused, and only slonik's connection
// retries (or, for the pool's own replacement, some later unrelated query) got the next client a
// connection. Here a client that arrives while another session is open waits its turn instead:
// a closing session ends within milliseconds. A live session (some other local process on the
// port) makes ours wait, up to the connect timeout, rather than interleave statements with it.
import { createServer, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

// Requests sent before the startup message: [int32 length][int32 code].
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const PROTOCOL_3 = 196608;
const TERMINATE = 0x58; // 'X'

export interface EmbeddedServer {
  /** host:port of the loopback socket. */
  readonly address: string;
  /** Stop listening, close open sessions and wait until they have finished. */
  close(): Promise<void>;
}

/** Serve `pg` on a loopback port chosen by the system. */
export async function serveEmbedded(pg: PGlite): Promise<EmbeddedServer> {
  await pg.waitReady;
  const sockets = new Set<Socket>();
  // Each session starts when the one before it has finished (rolled back and closed).
  let turn: Promise<void> = Promise.resolve();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('error', () => undefined); // reported through the session's reads
    const previous = turn;
    turn = previous.then(() => serveSession(pg, socket)).finally(() => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('The embedded database socket has no TCP address');
  return {
    address: `127.0.0.1:${addr.port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await Promise.all([closed, turn]);
    },
  };
}

/** Run one client's session to its end; never throws. */
async function serveSession(pg: PGlite, socket: Socket): Promise<void> {
  try {
    // The socket's bytes waited in its buffer (unread) while earlier sessions ran.
    let buf: Buffer = Buffer.alloc(0);
    let started = false;
    for await (const chunk of socket as AsyncIterable<Buffer>) {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      for (;;) {
        const size = messageSize(buf, started);
        if (size === null) break;
        if (size < (started ? 5 : 8)) return; // not the Postgres protocol
        if (buf.length < size) break;
        const message = buf.subarray(0, size);
        buf = buf.subarray(size);
        if (!started) {
          const code = message.readInt32BE(4);
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
            socket.write('N'); // no encryption on a loopback socket; the client goes on in clear
            continue;
          }
          if (code !== PROTOCOL_3) return; // a CancelRequest (PGlite has no backend to signal) or garbage
          started = true;
        } else if (message[0] === TERMINATE) {
          return;
        }
        await pg.runExclusive(() =>
          pg.execProtocolRawStream(new Uint8Array(message), { onRawData: (data) => void socket.write(Buffer.from(data)) }),
        );
      }
    }
  } catch {
    // The client went away (reset) or PGlite failed the message: the session ends either way.
  } finally {
    socket.destroy();
    // A client that vanished inside a transaction must not leave it to the next session.
    if (!pg.closed && pg.isInTransaction()) await pg.exec('ROLLBACK').catch(() => undefined);
  }
}

/** The length of the first message in buf, or null until its length field has arrived. */
function messageSize(buf: Buffer, started: boolean): number | null {
  if (!started) return buf.length >= 4 ? buf.readInt32BE(0) : null; // untyped: length includes itself
  return buf.length >= 5 ? 1 + buf.readInt32BE(1) : null; // type byte + length
}
