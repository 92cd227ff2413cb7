// Prometheus metrics (GET /metrics). One registry per App, so tests and several apps in one
// process never share counters.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';

export interface QueueCounts {
  readonly queues: number;
  readonly parked: number;
  readonly sockets: number;
}

const KNOWN_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

interface RequestTally {
  readonly labels: { readonly route: string; readonly method: string; readonly status: string };
  /** Requests not yet added to the prom-client counter. */
  unfolded: number;
  readonly durations: DurationSeries;
}

interface SeriesValue {
  readonly metricName: string;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
}

/** One label set of a DurationHistogram. */
class DurationSeries {
  /** Observations per bucket (not cumulative); the last one is +Inf. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly labels: { readonly route: string; readonly method: string },
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(seconds: number): void {
    let i = 0;
    while (i < this.bounds.length && seconds > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

/**
 * A histogram by route and method whose series are plain objects the caller keeps, so that an
 * observation is a few additions; registered with prom-client as a metric that reports its
 * values when scraped (the registry needs only name, help, type, get() and reset()).
 */
class DurationHistogram {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly all = new Map<string, DurationSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  series(route: string, method: string): DurationSeries {
    const key = `${method} ${route}`;
    let s = this.all.get(key);
    if (!s) this.all.set(key, (s = new DurationSeries({ route, method }, this.bounds)));
    return s;
  }

  /** What the registry reads: prom-client's own histograms report in this shape. */
  get(): { name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: SeriesValue[] } {
    const values: SeriesValue[] = [];
    for (const s of this.all.values()) {
      let cumulative = 0;
      s.counts.forEach((n, i) => {
        cumulative += n;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: this.bounds[i] ?? '+Inf', ...s.labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_sum`, labels: { ...s.labels }, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...s.labels }, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const s of this.all.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}

export class Metrics {
  readonly registry = new Registry();
  /** Folded in from the request tallies at each scrape (see request()). */
  readonly requests = new Counter({
    name: 'parley_http_requests_total',
    help: 'HTTP requests by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
    collect: () => this.foldRequestCounts(),
  });
  private readonly latency = new DurationHistogram(
    'parley_http_request_duration_seconds',
    'Time from receiving a request to its response being ready (long-polls included)',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
  );
  readonly rateLimited = new Counter({
    name: 'parley_rate_limited_total',
    help: 'Requests refused with RATE_LIMIT_HIT',
    registers: [this.registry],
  });
  readonly eventsDelivered = new Counter({
    name: 'parley_events_delivered_total',
    help: 'Events handed to clients (long-poll responses and WebSocket frames)',
    registers: [this.registry],
  });
  /** Set once, when the server starts serving (startup.ts). */
  private readonly startup = new Gauge({
    name: 'parley_startup_seconds',
    help: "Time each phase of this process's start took, from the process's start to serving",
    labelNames: ['phase'] as const,
    registers: [this.registry],
  });
  readonly poolWait = new Histogram({
    name: 'parley_db_pool_wait_seconds',
    help: 'Time spent waiting for a database connection from the pool',
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [this.registry],
  });

  /**
   * Requests by route, method and status, counted here and folded into the counter when scraped:
   * prom-client's labelled inc() and observe() validate and hash their labels on every call,
   * which was a tenth of a presence report's JavaScript.
   */
  private readonly tallies = new Map<string, Map<number, RequestTally>>();

  /**
   * Count a request and its duration, by route pattern, method and status. A method outside
   * HTTP's usual ones counts as `other`: clients choose it, and each label set is kept for good.
   */
  request(route: string, requestMethod: string, status: number, seconds: number): void {
    let method = KNOWN_METHODS.indexOf(requestMethod);
    if (method < 0) method = KNOWN_METHODS.length;
    let byRoute = this.tallies.get(route);
    if (!byRoute) this.tallies.set(route, (byRoute = new Map()));
    const key = status * 16 + method;
    let tally = byRoute.get(key);
    if (!tally) {
      const methodName = KNOWN_METHODS[method] ?? 'other';
      tally = { labels: { route, method: methodName, status: String(status) }, unfolded: 0, durations: this.latency.series(route, methodName) };
      byRoute.set(key, tally);
    }
    tally.unfolded++;
    tally.durations.observe(seconds);
  }

  /** The phases of this process's start, in milliseconds (StartupClock.phases()). */
  started(phases: Iterable<readonly [phase: string, ms: number]>): void {
    for (const [phase, ms] of phases) this.startup.set({ phase }, ms / 1000);
  }

  private foldRequestCounts(): void {
    for (const byRoute of this.tallies.values()) {
      for (const t of byRoute.values()) {
        if (t.unfolded === 0) continue;
        this.requests.inc(t.labels, t.unfolded);
        t.unfolded = 0;
      }
    }
  }

  constructor(queueCounts: () => QueueCounts) {
    const gauge = (name: string, help: string, pick: (c: QueueCounts) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(pick(queueCounts()));
        },
      });
    gauge('parley_event_queues', 'Open event queues', (c) => c.queues);
    gauge('parley_parked_long_polls', 'GET /events requests parked on their queues', (c) => c.parked);
    gauge('parley_open_websockets', 'Open events WebSockets', (c) => c.sockets);
    this.registry.registerMetric(this.latency as unknown as Metric);
    // Event-loop lag, memory, CPU and handles of the process.
    collectDefaultMetrics({ register: this.registry, prefix: 'parley_' });
  }
}
