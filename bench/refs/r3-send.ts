// R3: the SQL of one Parley send, run through `pg` with nothing else: the transaction of
// src/actors/conversations/send.ts (recipients' alert words, the message row, one user_messages
// row per recipient, the event-log row), synchronous_commit on. Run by the harness as a child
// process against the scenario's own database before Parley starts on it; prints one JSON line.
// Its rows are marked (client 'bench-r3', event ids from R3_EVENT_ID_BASE) and removed afterwards.
import pg from 'pg';
import { now } from '../load/protocol.js';
import { startEmbedded } from '../../src/store/database.js';

export const R3_CLIENT = 'bench-r3';
export const R3_EVENT_ID_BASE = 9_000_000_000_000;

export interface R3Job {
  /** postgres:// URL, or null to open the embedded database in dataDir. */
  readonly url: string | null;
  readonly dataDir: string | null;
  readonly pool: number;
  readonly concurrency: number;
  readonly durationMs: number;
  /** Stop after this many transactions (0: no limit). */
  readonly maxCount: number;
  readonly realmId: number;
  /** channel: every client sends to channelId; dm: client i sends senders[i] → partners[i]. */
  readonly kind: 'channel' | 'dm';
  readonly channelId: number | null;
  readonly senders: readonly number[];
  readonly partners: readonly number[];
}

export interface R3Result {
  readonly count: number;
  readonly latencies: number[];
  readonly seconds: number;
}

const CONTENT = 'A benchmark message with a little **Markdown** in it.';
const RENDERED = '<p>A benchmark message with a little <strong>Markdown</strong> in it.</p>';

const ALERTS_CHANNEL = `SELECT a.user_id, array_agg(a.word) AS words FROM alert_words a
  JOIN subscriptions s ON s.user_id = a.user_id AND s.channel_id = $1 AND s.active GROUP BY a.user_id`;
const ALERTS_DM = `SELECT user_id, array_agg(word) AS words FROM alert_words WHERE user_id = ANY($1::int4[]) GROUP BY user_id`;
const INSERT_MESSAGE = `INSERT INTO messages AS m (realm_id, sender_id, channel_id, topic, dm_key, content, rendered_content, date_sent,
    client, has_link, has_image, has_attachment, is_me_message, kind)
  VALUES ($1, $2, $3, $4, $5, $6, $7, to_timestamp($8), $9, false, false, false, false, 0)
  RETURNING m.id, m.realm_id, m.sender_id, m.channel_id, m.topic, m.dm_key, m.content, m.rendered_content, m.date_sent,
    m.last_edit_time, m.last_moved_time, m.client, m.has_link, m.has_image, m.has_attachment, m.is_me_message, m.kind`;
const INSERT_CHANNEL_RECIPIENTS = `WITH personal AS (
    SELECT * FROM unnest($1::int[], $2::int[]) AS p(user_id, bits)), recipients AS (
    SELECT s.user_id FROM subscriptions s JOIN users u ON u.id = s.user_id
    WHERE s.channel_id = $3 AND s.active AND u.is_active
    UNION SELECT $4::int)
  INSERT INTO user_messages (user_id, message_id, flags)
  SELECT r.user_id, $5::bigint, 0::int | CASE WHEN r.user_id = $4 THEN 1::int ELSE 0 END | coalesce(p.bits, 0)
  FROM recipients r LEFT JOIN personal p ON p.user_id = r.user_id
  RETURNING user_id, flags`;
const INSERT_DM_RECIPIENTS = `WITH personal AS (
    SELECT * FROM unnest($1::int[], $2::int[]) AS p(user_id, bits))
  INSERT INTO user_messages (user_id, message_id, flags)
  SELECT r.user_id, $3::bigint, 0::int | CASE WHEN r.user_id = $4 THEN 1::int ELSE 0 END | coalesce(p.bits, 0)
  FROM unnest($5::int4[]) AS r(user_id) LEFT JOIN personal p ON p.user_id = r.user_id
  RETURNING user_id, flags`;
const INSERT_EVENT = `INSERT INTO events (id, realm_id, type, user_ids, public_channel_id, payload, per_user, span_ids)
  VALUES ($1, $2, 'message', $3::int4[], $4, $5::jsonb, NULL, NULL)`;

export async function runR3(job: R3Job): Promise<R3Result> {
  const embedded = job.url === null ? await startEmbedded({ dataDir: job.dataDir! }) : null;
  const pool = new pg.Pool({ connectionString: job.url ?? embedded!.url, max: job.pool });
  pool.on('connect', (c) => void c.query('SET synchronous_commit = on'));
  let eventId = R3_EVENT_ID_BASE;
  const latencies: number[] = [];
  const send = async (client: number) => {
    const senderId = job.senders[client % job.senders.length]!;
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      let recipients: Array<{ user_id: number }>;
      if (job.kind === 'channel') {
        await c.query(ALERTS_CHANNEL, [job.channelId]);
        const m = await c.query(INSERT_MESSAGE, [job.realmId, senderId, job.channelId, 'bench', null, CONTENT, RENDERED, Date.now() / 1000, R3_CLIENT]);
        recipients = (await c.query(INSERT_CHANNEL_RECIPIENTS, [[], [], job.channelId, senderId, m.rows[0].id])).rows;
        await c.query(INSERT_EVENT, [eventId++, job.realmId, recipients.map((r) => r.user_id), job.channelId, JSON.stringify({ message: m.rows[0], flags: [] })]);
      } else {
        const ids = [senderId, job.partners[client % job.partners.length]!].sort((a, b) => a - b);
        await c.query(ALERTS_DM, [ids]);
        const m = await c.query(INSERT_MESSAGE, [job.realmId, senderId, null, null, ids.join(','), CONTENT, RENDERED, Date.now() / 1000, R3_CLIENT]);
        recipients = (await c.query(INSERT_DM_RECIPIENTS, [[], [], m.rows[0].id, senderId, ids])).rows;
        await c.query(INSERT_EVENT, [eventId++, job.realmId, recipients.map((r) => r.user_id), null, JSON.stringify({ message: m.rows[0], flags: [] })]);
      }
      await c.query('COMMIT');
    } finally {
      c.release();
    }
  };
  const started = now();
  const deadline = started + job.durationMs;
  await Promise.all(
    Array.from({ length: job.concurrency }, async (_, client) => {
      while (now() < deadline && (job.maxCount === 0 || latencies.length < job.maxCount)) {
        const t = now();
        await send(client);
        latencies.push(now() - t);
      }
    }),
  );
  const seconds = (now() - started) / 1000;
  await pool.end();
  await embedded?.close();
  return { count: latencies.length, latencies, seconds };
}

// Run as a program: the job as JSON in argv[2], the result as one JSON line on stdout.
if (process.argv[1]?.endsWith('r3-send.js') && process.argv[2]) {
  runR3(JSON.parse(process.argv[2]) as R3Job).then(
    (r) => process.stdout.write(JSON.stringify(r) + '\n'),
    (e: unknown) => {
      process.stderr.write(`R3 failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
