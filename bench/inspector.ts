// Just enough of the Chrome DevTools Protocol to ask a child process, started with
// `--inspect=127.0.0.1:0`, for a full garbage collection (the capacity scenario reads memory after
// one, so that the reading is what a process holds, not garbage a burst of work left behind) and
// for a heap snapshot (what holds that memory: bench/heap-diff.ts compares two).
import { writeFile } from 'node:fs/promises';
import WebSocket from 'ws';

/** The URL a child prints on stderr when its inspector listens. */
const LISTENING = /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/;

export class Inspector {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (result: unknown) => void; reject: (e: Error) => void }>();
  /** The chunks of the heap snapshot being taken, which arrive as events before its answer. */
  private chunks: string[] | null = null;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      const m = JSON.parse(data.toString('utf8')) as { id?: number; method?: string; params?: { chunk?: string }; result?: unknown; error?: { message: string } };
      if (m.method === 'HeapProfiler.addHeapSnapshotChunk') this.chunks?.push(m.params!.chunk!);
      const p = m.id === undefined ? undefined : this.pending.get(m.id);
      if (!p) return; // an event, not an answer
      this.pending.delete(m.id!);
      if (m.error) p.reject(new Error(`inspector: ${m.error.message}`));
      else p.resolve(m.result);
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

  /** A protocol method; its result. */
  call(method: string, params?: Record<string, unknown>): Promise<unknown> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** A full, memory-reducing collection (what DevTools' "collect garbage" button does). */
  async collectGarbage(): Promise<void> {
    await this.call('HeapProfiler.collectGarbage');
  }

  /**
   * Bytes of live objects on V8's heap: right after a full collection, exactly what the program
   * holds there, which no allocator's free memory or returned page moves.
   */
  async heapUsed(): Promise<number> {
    return ((await this.call('Runtime.getHeapUsage')) as { usedSize: number }).usedSize;
  }

  /** The process's usage (its memory) after a full collection, and its heap's live bytes right after it. */
  async collectedUsage<U>(server: { usage(): U }): Promise<{ usage: U; heapBytes: number }> {
    await this.collectGarbage();
    const heapBytes = await this.heapUsed();
    // The collection returns pages to the system as it sweeps: give the sweeper a moment.
    await new Promise((r) => setTimeout(r, 500));
    return { usage: server.usage(), heapBytes };
  }

  /** A heap snapshot (which collects garbage first), written to `file` in DevTools' format. */
  async heapSnapshot(file: string): Promise<void> {
    this.chunks = [];
    try {
      await this.call('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      await writeFile(file, this.chunks.join(''));
    } finally {
      this.chunks = null;
    }
  }

  close(): void {
    this.socket.close();
  }
}
