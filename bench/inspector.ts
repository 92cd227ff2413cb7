// Just enough of the Chrome DevTools Protocol to ask a child process, started with
// `--inspect=127.0.0.1:0`, for a full garbage collection. The capacity scenario reads memory after
// one, so that the reading is what a process holds, not garbage a burst of work left behind.
import WebSocket from 'ws';

/** The URL a child prints on stderr when its inspector listens. */
const LISTENING = /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/;

export class Inspector {
  private next = 0;
  private readonly pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      const m = JSON.parse(data.toString('utf8')) as { id?: number; error?: { message: string } };
      const p = m.id === undefined ? undefined : this.pending.get(m.id);
      if (!p) return; // an event, not an answer
      this.pending.delete(m.id!);
      if (m.error) p.reject(new Error(`inspector: ${m.error.message}`));
      else p.resolve();
    });
    // A failure closes the socket too, and the close rejects what waits; the error itself is not
    // to end the harness.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      for (const p of this.pending.values()) p.reject(new Error('inspector: connection closed'));
      this.pending.clear();
    });
  }

  /**
   * Connect to the inspector whose URL the process prints on stderr (`output`: what it printed so
   * far). Its stderr and stdout are separate pipes, so the URL may come in after the line a
   * caller waited for: it is waited for too, up to `timeoutMs`.
   */
  static async connect(child: { output(): string }, timeoutMs = 10_000): Promise<Inspector> {
    const t0 = Date.now();
    let url = LISTENING.exec(child.output())?.[1];
    while (!url) {
      if (Date.now() - t0 > timeoutMs) throw new Error(`no inspector URL in the process's output:\n${child.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 20));
      url = LISTENING.exec(child.output())?.[1];
    }
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new Inspector(socket);
  }

  /** A protocol method without parameters or results. */
  call(method: string): Promise<void> {
    const id = ++this.next;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method }));
    });
  }

  /** A full, memory-reducing collection (what DevTools' "collect garbage" button does). */
  collectGarbage(): Promise<void> {
    return this.call('HeapProfiler.collectGarbage');
  }

  /** The process's usage (its memory) after a full collection. */
  async collectedUsage<U>(server: { usage(): U }): Promise<U> {
    await this.collectGarbage();
    // The collection returns pages to the system as it sweeps: give the sweeper a moment.
    await new Promise((r) => setTimeout(r, 500));
    return server.usage();
  }

  close(): void {
    this.socket.close();
  }
}
