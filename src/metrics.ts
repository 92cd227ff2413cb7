// Prometheus metrics (GET /metrics). One registry per App, so tests and several apps in one
// process never share counters.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface QueueCounts {
  readonly queues: number;
  readonly parked: number;
  readonly sockets: number;
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'parley_http_requests_total',
    help: 'HTTP requests by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'Time from receiving a request to its response being ready (long-polls included)',
    labelNames: ['route', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registers: [this.registry],
  });
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
  readonly poolWait = new Histogram({
    name: 'parley_db_pool_wait_seconds',
    help: 'Time spent waiting for a database connection from the pool',
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [this.registry],
  });

  /** Each route, method and status's counter and histogram, found once (labels are hashed per lookup). */
  private readonly perRequest = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();

  /**
   * Count a request and its duration, by route pattern, method and status. A method outside
   * HTTP's usual ones counts as `other`: clients choose it, and each label set is kept for good.
   */
  request(route: string, requestMethod: string, status: number, seconds: number): void {
    const method = KNOWN_METHODS.has(requestMethod) ? requestMethod : 'other';
    const key = `${status} ${method} ${route}`;
    let m = this.perRequest.get(key);
    if (!m) {
      m = { count: this.requests.labels(route, method, String(status)), time: this.latency.labels(route, method) };
      this.perRequest.set(key, m);
    }
    m.count.inc();
    m.time.observe(seconds);
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
    // Event-loop lag, memory, CPU and handles of the process.
    collectDefaultMetrics({ register: this.registry, prefix: 'parley_' });
  }
}
