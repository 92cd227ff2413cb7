// The process-wide dependencies every part receives explicitly (no module singletons).
import type { Logger } from 'pino';
import type { DatabasePool } from 'slonik';
import type { IdAllocator } from './actors/event-sequencer.js';
import type { ActorRuntime } from './actors/runtime.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { ServerSecret } from './domain/secrets.js';
import type { Metrics } from './metrics.js';

export interface Services {
  readonly config: Config;
  readonly db: DatabasePool;
  readonly dbKind: 'postgres' | 'embedded';
  /** Transactions the pool can run at once (1 on the embedded database). */
  readonly dbConnections: number;
  readonly log: Logger;
  readonly clock: Clock;
  readonly secret: ServerSecret;
  readonly runtime: ActorRuntime;
  readonly ids: IdAllocator;
  /** Absent only in bare test setups. */
  readonly metrics?: Metrics;
}
