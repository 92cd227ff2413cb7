// Where a start's time went, by phase, from the process's start to serving: logged with "Parley is
// serving" and kept in /metrics (parley_startup_seconds), so that a slow start (a restart with
// many queues, a cold machine) shows which part was slow. The restart benchmark prints them.

/** The phases of a start, in order; each ends when the next begins. */
export const STARTUP_PHASES = [
  /** Node itself, and loading and compiling the server's code (until main() runs). */
  'load',
  /** Opening the database (the embedded one starts here) and applying migrations. */
  'database',
  /** Loading the organizations that have event queues, and crediting them the downtime. */
  'organizations',
  /** Restoring those queues and their unacknowledged events from the log. */
  'queues',
  /** A first start's organization, then listening for HTTP and on the admin socket. */
  'listen',
] as const;

export type StartupPhase = (typeof STARTUP_PHASES)[number];

export class StartupClock {
  private readonly ms = new Map<StartupPhase, number>();
  private last: number;

  /**
   * @param now milliseconds since the process started: performance.now() counts from there.
   * @param start when the first phase began on that scale: the process's start.
   */
  constructor(
    private readonly now: () => number = () => performance.now(),
    start = 0,
  ) {
    this.last = start;
  }

  /** `phase` ends now: it took the time since the previous phase ended. */
  end(phase: StartupPhase): void {
    const t = this.now();
    this.ms.set(phase, Math.max(0, t - this.last));
    this.last = t;
  }

  /** Each phase ended so far, in milliseconds, in order. */
  phases(): Array<[StartupPhase, number]> {
    return STARTUP_PHASES.flatMap((p) => {
      const ms = this.ms.get(p);
      return ms === undefined ? [] : [[p, ms] as [StartupPhase, number]];
    });
  }

  /** The same, as a log field: whole milliseconds by phase. */
  toJSON(): Record<string, number> {
    return Object.fromEntries(this.phases().map(([p, ms]) => [p, Math.round(ms)]));
  }
}
