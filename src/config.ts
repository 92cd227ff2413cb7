// The environment, parsed once with zod and frozen. Every tunable of Parley is here, with its
// default; README.md documents the same table. A bad value stops the process at start with a
// message naming the variable.
import { resolve } from 'node:path';
import { z } from 'zod';

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const url = z.string().url();

/** Every environment variable Parley reads, with its default (README's configuration table mirrors it). */
export const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: int(0, 65535).default(9991),
  EXTERNAL_URL: url.optional(),
  DATABASE_URL: url.optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  SECRET_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/]{43}=$/, 'must be the standard Base64 encoding of 32 bytes')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  DB_POOL_MAX: int(1, 1000).default(10),
  DB_POOL_MIN: int(0, 1000).default(2),
  DB_CONNECT_TIMEOUT_MS: int(100).default(5000),
  DB_STATEMENT_TIMEOUT_MS: int(100).default(30000),

  MAX_BODY_BYTES: int(1024).default(26 * 1024 * 1024),
  BODY_TIMEOUT_MS: int(100).default(30000),
  ACTOR_ASK_TIMEOUT_MS: int(100).default(30000),

  RATE_LIMIT_USER_PER_MINUTE: int(0).default(200),
  RATE_LIMIT_IP_PER_MINUTE: int(0).default(100),
  LOGIN_FAILURES_PER_USER: int(1).default(5),
  LOGIN_FAILURES_PER_IP: int(1).default(50),
  LOGIN_FAILURE_WINDOW_SECONDS: int(1).default(30 * 60),
  SESSION_LIFETIME_SECONDS: int(60).default(14 * 86_400),
  SHUTDOWN_TIMEOUT_MS: int(100).default(10000),

  HEARTBEAT_MS: int(50).default(50_000),
  QUEUE_IDLE_TIMEOUT_SECONDS: int(1).default(600),
  QUEUE_MAX_IDLE_TIMEOUT_SECONDS: int(1).default(7 * 86_400),
  QUEUE_FLUSH_INTERVAL_MS: int(10).default(2_000),
  QUEUE_SAVE_INTERVAL_MS: int(10).default(60_000),
  QUEUE_BUCKETS: int(1, 4096).default(64),
  QUEUE_ANSWER_INTERVAL_MS: int(0, 1000).default(20),
  SOCKET_MAX_BACKPRESSURE_BYTES: int(1024).default(1024 * 1024),
  SOCKET_TICKET_TTL_SECONDS: int(1).default(60),

  PRESENCE_FLUSH_INTERVAL_MS: int(10).default(5_000),
  PRESENCE_EVENT_USER_LIMIT: int(0).default(100),
  CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE: bool.default('false'),
  INVITATION_LINK_VALIDITY_MINUTES: int(1).default(14_400),
  MAX_UPLOAD_BYTES: int(1).default(25 * 1024 * 1024),
  UPLOADS_DIR: z.string().min(1).optional(),
  VIDEOCALL_URL: url.optional(),
  PUSH_SERVICE_URL: url.optional(),

  METRICS_TOKEN: z.string().min(16).optional(),

  BOOTSTRAP_REALM_NAME: z.string().min(1).default('Parley'),
  BOOTSTRAP_OWNER_EMAIL: z.string().email().default('owner@parley.localhost'),
  BOOTSTRAP_OWNER_NAME: z.string().min(1).default('Organization Owner'),
});

export type Env = z.input<typeof envSchema>;

export interface Config {
  readonly host: string;
  readonly port: number;
  /** The server's own URL; the organization created on first start is served here. */
  readonly externalUrl: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly secretKey: string | undefined;
  readonly logLevel: string;
  readonly db: {
    readonly poolMax: number;
    readonly poolMin: number;
    readonly connectTimeoutMs: number;
    readonly statementTimeoutMs: number;
  };
  readonly http: {
    readonly maxBodyBytes: number;
    readonly bodyTimeoutMs: number;
  };
  readonly actorAskTimeoutMs: number;
  /** Requests per minute; 0 turns a limit off. */
  readonly rateLimits: {
    readonly userPerMinute: number;
    readonly ipPerMinute: number;
  };
  readonly loginLimits: {
    readonly perUser: number;
    readonly perIp: number;
    readonly windowSeconds: number;
  };
  /** How long a browser session (POST /login, sign-up) lasts. */
  readonly sessionLifetimeSeconds: number;
  readonly shutdownTimeoutMs: number;
  readonly queues: {
    /** Parked long-polls get a heartbeat after 0.9–1.1 × this much silence. */
    readonly heartbeatMs: number;
    readonly defaultIdleTimeoutSecs: number;
    readonly maxIdleTimeoutSecs: number;
    /** How often the queues' rows are written (one batch: ended queues, due cursors and contacts). */
    readonly flushIntervalMs: number;
    /**
     * How long a changed cursor and contact time may wait for their write: each flush writes the
     * changed queues whose turn it is, one of saveIntervalMs / flushIntervalMs turns (sooner when
     * a queue's contact moved by a tenth of its idle timeout). Never below flushIntervalMs.
     */
    readonly saveIntervalMs: number;
    /** Hashed parent actors per realm for queue actors (DESIGN.md §3). */
    readonly buckets: number;
    /**
     * A long-poll is answered with events at most once per this many milliseconds (0: at once,
     * always): events that come sooner after an answer wait for the rest of the interval.
     */
    readonly answerIntervalMs: number;
    readonly socketMaxBackpressureBytes: number;
    readonly socketTicketTtlSecs: number;
  };
  readonly presence: {
    /** How often changed presence rows are written (at most one write per user per interval). */
    readonly flushIntervalMs: number;
    /** Organizations with more active users than this get no presence events (clients poll). */
    readonly eventUserLimit: number;
    /** Limit presence data to the users the requester may access (can_access_all_users_group). */
    readonly limitToAccessibleUsers: boolean;
  };
  readonly invitations: {
    /** Default lifetime of a reusable invitation link. */
    readonly linkValidityMinutes: number;
  };
  readonly uploads: {
    /** Largest file accepted by POST /user_uploads. */
    readonly maxBytes: number;
    /** Where uploaded files are kept (local disk). */
    readonly dir: string;
  };
  /** Base URL of a self-hosted meeting server; POST /calls/videocall/create makes rooms under it. */
  readonly videocallUrl: string | undefined;
  /** The push notification service this server forwards to; unset: no push notifications. */
  readonly pushServiceUrl: string | undefined;
  /** Bearer token for GET /metrics; without one only loopback clients may scrape. */
  readonly metricsToken: string | undefined;
  readonly bootstrap: {
    readonly realmName: string;
    readonly ownerEmail: string;
    readonly ownerName: string;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parse the environment. Empty strings count as unset. Throws ConfigError naming each bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const known = Object.keys(envSchema.shape);
  const input: Record<string, string> = {};
  for (const key of known) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.join('.')}=${JSON.stringify(input[String(i.path[0])])}: ${i.message}`),
    );
  }
  const e = parsed.data;
  if (e.DB_POOL_MIN > e.DB_POOL_MAX) {
    throw new ConfigError([`DB_POOL_MIN=${e.DB_POOL_MIN}: must not exceed DB_POOL_MAX=${e.DB_POOL_MAX}`]);
  }
  const ownHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? '127.0.0.1' : e.HOST;
  const config: Config = {
    host: e.HOST,
    port: e.PORT,
    externalUrl: (e.EXTERNAL_URL ?? `http://${ownHost}:${e.PORT}`).replace(/\/+$/, ''),
    databaseUrl: e.DATABASE_URL,
    dataDir: resolve(e.DATA_DIR),
    secretKey: e.SECRET_KEY,
    logLevel: e.LOG_LEVEL,
    db: {
      poolMax: e.DB_POOL_MAX,
      poolMin: e.DB_POOL_MIN,
      connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    },
    http: { maxBodyBytes: e.MAX_BODY_BYTES, bodyTimeoutMs: e.BODY_TIMEOUT_MS },
    actorAskTimeoutMs: e.ACTOR_ASK_TIMEOUT_MS,
    rateLimits: { userPerMinute: e.RATE_LIMIT_USER_PER_MINUTE, ipPerMinute: e.RATE_LIMIT_IP_PER_MINUTE },
    loginLimits: {
      perUser: e.LOGIN_FAILURES_PER_USER,
      perIp: e.LOGIN_FAILURES_PER_IP,
      windowSeconds: e.LOGIN_FAILURE_WINDOW_SECONDS,
    },
    sessionLifetimeSeconds: e.SESSION_LIFETIME_SECONDS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    queues: {
      heartbeatMs: e.HEARTBEAT_MS,
      defaultIdleTimeoutSecs: e.QUEUE_IDLE_TIMEOUT_SECONDS,
      maxIdleTimeoutSecs: Math.max(e.QUEUE_MAX_IDLE_TIMEOUT_SECONDS, e.QUEUE_IDLE_TIMEOUT_SECONDS),
      flushIntervalMs: e.QUEUE_FLUSH_INTERVAL_MS,
      saveIntervalMs: Math.max(e.QUEUE_SAVE_INTERVAL_MS, e.QUEUE_FLUSH_INTERVAL_MS),
      buckets: e.QUEUE_BUCKETS,
      answerIntervalMs: e.QUEUE_ANSWER_INTERVAL_MS,
      socketMaxBackpressureBytes: e.SOCKET_MAX_BACKPRESSURE_BYTES,
      socketTicketTtlSecs: e.SOCKET_TICKET_TTL_SECONDS,
    },
    presence: {
      flushIntervalMs: e.PRESENCE_FLUSH_INTERVAL_MS,
      eventUserLimit: e.PRESENCE_EVENT_USER_LIMIT,
      limitToAccessibleUsers: e.CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE,
    },
    invitations: { linkValidityMinutes: e.INVITATION_LINK_VALIDITY_MINUTES },
    uploads: {
      maxBytes: e.MAX_UPLOAD_BYTES,
      dir: resolve(e.UPLOADS_DIR ?? resolve(e.DATA_DIR, 'uploads')),
    },
    videocallUrl: e.VIDEOCALL_URL?.replace(/\/+$/, ''),
    pushServiceUrl: e.PUSH_SERVICE_URL?.replace(/\/+$/, ''),
    metricsToken: e.METRICS_TOKEN,
    bootstrap: {
      realmName: e.BOOTSTRAP_REALM_NAME,
      ownerEmail: e.BOOTSTRAP_OWNER_EMAIL,
      ownerName: e.BOOTSTRAP_OWNER_NAME,
    },
  };
  return deepFreeze(config);
}

function deepFreeze<T extends object>(o: T): T {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}
