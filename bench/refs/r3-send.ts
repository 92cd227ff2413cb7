// R3: the SQL of one Parley send, run through `pg` with nothing else: the transaction of
// src/actors/conversations/send.ts for a batch of one send (recipients' alert words, the message
// row, one user_messages row per recipient, the event-log row): the statements' text from the
// same functions of src/store, synchronous_commit on. The harness runs it as a child process
// against the scenario's own database and tells it, over IPC, when to send and for how long: on
// Postgres in turns with Parley's, on the embedded database (one session at a time) before Parley
// starts. Its rows are marked (client 'bench-r3', event ids from R3_EVENT_ID_BASE), and it removes
// them itself when told, through its own connections.
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import type { PublishedEvent } from '../../src/actors/event-sequencer.js';
import { now } from '../load/protocol.js';
import { startEmbedded } from '../../src/store/database.js';
import { insertEventsQuery } from '../../src/store/events.js';
import {
  channelAlertWordsQuery,
  insertMessagesQuery,
  insertRecipientsQuery,
  usersAlertWordsQuery,
  type NewMessage,
  type NewRecipients,
} from '../../src/store/messages.js';
import { DM_BIT } from '../../src/domain/flags.js';
import { dmKeyOf } from '../../src/actors/realm/channel-index.js';

export const R3_CLIENT = 'bench-r3';
export const R3_EVENT_ID_BASE = 9_000_000_000_000;

export interface R3Job {
  /** postgres:// URL, or null to open the embedded database in dataDir. */
  readonly url: string | null;
  readonly dataDir: string | null;
  readonly pool: number;
  readonly concurrency: number;
  readonly realmId: number;
  /** channel: every client sends to channelId; dm: client i sends senders[i] → partners[i]. */
  readonly kind: 'channel' | 'dm';
  readonly channelId: number | null;
  readonly senders: readonly number[];
  readonly partners: readonly number[];
}

/** One stretch of sends: until durationMs has passed, or maxCount transactions (0: no limit). */
export interface R3Run {
  readonly durationMs: number;
  readonly maxCount: number;
}

export interface R3Result {
  readonly count: number;
  readonly latencies: number[];
  readonly seconds: number;
}

/** What R3 and Parley's benchmark clients send. */
export const SEND_CONTENT = 'A benchmark message with a little **Markdown** in it.';
const RENDERED = '<p>A benchmark message with a little <strong>Markdown</strong> in it.</p>';

interface SendShape {
  readonly senderId: number;
  /** The participants of a direct message, else null (a channel message). */
  readonly dm: readonly number[] | null;
  readonly channelId: number | null;
}

/**
 * One statement of a send as pg runs it: the text that Parley's builder makes (taken once), with
 * values made here directly, so that R3 pays for the database work and not for building SQL.
 * The first send checks these values against the builder's: R3 runs exactly Parley's SQL.
 */
class Statement<I> {
  private text: string | null = null;

  constructor(
    private readonly build: (input: I) => { readonly sql: string; readonly values: readonly unknown[] },
    private readonly values: (input: I) => unknown[],
  ) {}

  args(input: I): [string, unknown[]] {
    const values = this.values(input);
    if (this.text === null) {
      const q = this.build(input);
      if (!isDeepStrictEqual(values, [...q.values])) throw new Error(`R3's values differ from Parley's for:\n${q.sql}`);
      this.text = q.sql.replaceAll('$slonik_', '$');
    }
    return [this.text, values];
  }
}

/** The message row of a send (as src/actors/conversations/send.ts stores it). */
const newMessage = (job: R3Job, s: SendShape, nowMs: number): NewMessage => ({
  realmId: job.realmId,
  senderId: s.senderId,
  channelId: s.dm ? null : s.channelId,
  topic: s.dm ? null : 'bench',
  dmKey: s.dm ? dmKeyOf(s.dm) : null,
  content: SEND_CONTENT,
  renderedContent: RENDERED,
  client: R3_CLIENT,
  hasLink: false,
  hasImage: false,
  hasAttachment: false,
  isMeMessage: false,
  nowMs,
});

/** As Parley's benchmark clients send (no User-Agent): not read by the sender, no mentions. */
const recipients = (s: SendShape, messageId: number): NewRecipients => ({
  messageId,
  channelId: s.dm ? null : s.channelId,
  userIds: s.dm,
  rule: { common: s.dm ? DM_BIT : 0, senderId: s.senderId, senderBits: 0, personal: new Map() },
});

function statements(job: R3Job) {
  return {
    alertWords: new Statement<SendShape>(
      (s) => (s.dm ? usersAlertWordsQuery(s.dm) : channelAlertWordsQuery(s.channelId!)),
      (s) => [s.dm ?? s.channelId],
    ),
    message: new Statement<{ s: SendShape; nowMs: number }>(
      ({ s, nowMs }) => insertMessagesQuery([newMessage(job, s, nowMs)]),
      ({ s, nowMs }) => {
        const m = newMessage(job, s, nowMs);
        return [m.realmId, m.senderId, m.channelId, m.topic, m.dmKey, m.content, m.renderedContent, nowMs / 1000, m.client, false, false, false, false, 0];
      },
    ),
    recipients: new Statement<{ s: SendShape; messageId: number }>(
      ({ s, messageId }) => insertRecipientsQuery([recipients(s, messageId)]),
      ({ s, messageId }) => {
        const r = recipients(s, messageId);
        const head = [[messageId], [r.channelId], [s.senderId], [0], [r.rule.common]];
        return s.dm ? [...head, s.dm.map(() => messageId), [...s.dm]] : [...head, [s.channelId]];
      },
    ),
    event: new Statement<PublishedEvent>(
      (e) => insertEventsQuery(job.realmId, [e]),
      (e) => [e.id, job.realmId, e.type, e.userIds, e.publicChannelId, JSON.stringify(e.payload), null, null],
    ),
  };
}

/** R3's connections and statements, open between runs (the pool stays warm, as Parley's does). */
export class R3Sender {
  private eventId = R3_EVENT_ID_BASE;
  private readonly sql: ReturnType<typeof statements>;

  private constructor(
    private readonly job: R3Job,
    private readonly pool: pg.Pool,
    private readonly embedded: { close(): Promise<void> } | null,
  ) {
    this.sql = statements(job);
  }

  static async open(job: R3Job): Promise<R3Sender> {
    const embedded = job.url === null ? await startEmbedded({ dataDir: job.dataDir! }) : null;
    const pool = new pg.Pool({ connectionString: job.url ?? embedded!.url, max: job.pool });
    pool.on('connect', (c) => void c.query('SET synchronous_commit = on'));
    return new R3Sender(job, pool, embedded);
  }

  private async send(client: number): Promise<void> {
    const { job, sql } = this;
    const senderId = job.senders[client % job.senders.length]!;
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const dm = job.kind === 'dm' ? [senderId, job.partners[client % job.partners.length]!].sort((a, b) => a - b) : null;
      const shape: SendShape = { senderId, dm, channelId: job.channelId };
      await c.query(...sql.alertWords.args(shape));
      const message = (await c.query(...sql.message.args({ s: shape, nowMs: Date.now() }))).rows[0] as { id: number };
      const rows = (await c.query(...sql.recipients.args({ s: shape, messageId: message.id }))).rows as Array<{ user_id: number }>;
      const event: PublishedEvent = {
        id: this.eventId++,
        type: 'message',
        payload: { message, flags: [] },
        userIds: rows.map((r) => r.user_id),
        publicChannelId: dm ? null : job.channelId,
        persisted: true,
      };
      await c.query(...sql.event.args(event));
      await c.query('COMMIT');
    } finally {
      c.release();
    }
  }

  /** Sends in a closed loop of job.concurrency clients for one run. */
  async run(r: R3Run): Promise<R3Result> {
    const latencies: number[] = [];
    const started = now();
    const deadline = started + r.durationMs;
    await Promise.all(
      Array.from({ length: this.job.concurrency }, async (_, client) => {
        while (now() < deadline && (r.maxCount === 0 || latencies.length < r.maxCount)) {
          const t = now();
          await this.send(client);
          latencies.push(now() - t);
        }
      }),
    );
    return { count: latencies.length, latencies, seconds: (now() - started) / 1000 };
  }

  /** Remove every row R3 wrote: its messages, their recipients and its events. */
  async removeRows(): Promise<void> {
    await this.pool.query('DELETE FROM events WHERE id >= $1', [R3_EVENT_ID_BASE]);
    await this.pool.query('DELETE FROM user_messages WHERE message_id IN (SELECT id FROM messages WHERE client = $1)', [R3_CLIENT]);
    await this.pool.query('DELETE FROM messages WHERE client = $1', [R3_CLIENT]);
  }

  async close(): Promise<void> {
    await this.pool.end();
    await this.embedded?.close();
  }
}

/** What the harness asks of the R3 process, and what it answers. */
export type R3Command = { readonly op: 'run'; readonly run: R3Run } | { readonly op: 'remove' } | { readonly op: 'close' };
export type R3Answer =
  | { readonly op: 'ready' }
  | { readonly op: 'result'; readonly result: R3Result }
  | { readonly op: 'removed' }
  | { readonly op: 'closed' };

// Run as a forked program: the job as JSON in argv[2], then commands over IPC, one at a time.
if (process.argv[1]?.endsWith('r3-send.js') && process.argv[2] && process.send) {
  const answer = (a: R3Answer) => process.send!(a);
  const fail = (e: unknown) => {
    process.stderr.write(`R3 failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  };
  R3Sender.open(JSON.parse(process.argv[2]) as R3Job).then((sender) => {
    process.on('message', (c: R3Command) => {
      if (c.op === 'run') sender.run(c.run).then((result) => answer({ op: 'result', result }), fail);
      else if (c.op === 'remove') sender.removeRows().then(() => answer({ op: 'removed' }), fail);
      // Closed: the IPC channel is let go once the answer is out, and the process ends.
      else sender.close().then(() => process.send!({ op: 'closed' } satisfies R3Answer, () => process.disconnect()), fail);
    });
    answer({ op: 'ready' });
  }, fail);
}
