// Clients that load a real server process over HTTP while it is made to fail (crash and outage
// tests): senders that retry each message with its Idempotency-Key until it is acknowledged, and
// queue consumers that long-poll and resume with their last_event_id. They record what they were
// told, so a test can check afterwards that nothing was lost or repeated.
import { Agent } from 'node:http';
import * as assert from 'uvu/assert';
import { httpRequest, runCli } from './process.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The server under test: its URL stays the same across restarts. */
export interface Target {
  readonly url: string;
  /** Set when the test ends: consumers stop retrying. */
  stopping: boolean;
}

export interface Client {
  readonly name: string;
  readonly auth: string;
  /** Own connections, so a killed server's dead keep-alive sockets affect only this client. */
  readonly agent: Agent;
}

export function client(name: string, email: string, key: string): Client {
  return { name, auth: `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`, agent: new Agent({ keepAlive: true }) };
}

/** The owner a first start printed (with its API key). */
export function printedOwner(output: string): Client {
  return client('owner', /Owner:\s+(\S+)/.exec(output)![1]!, /API key:\s+(\S+)/.exec(output)![1]!);
}

/** A new member, created with the management CLI against the server's DATA_DIR and database. */
export async function cliUser(env: Record<string, string>, name: string): Promise<Client & { id: number }> {
  const r = await runCli(['user', 'create', '--email', `${name}@example.com`, '--name', name, '--json'], env);
  assert.is(r.code, 0, r.stderr + r.stdout);
  const u = JSON.parse(r.stdout) as { user_id: number; email: string; api_key: string };
  return { ...client(name, u.email, u.api_key), id: u.user_id };
}

export interface Answer {
  readonly status: number;
  readonly body: Json;
  /** When the request was sent, and how long its answer took. */
  readonly at: number;
  readonly ms: number;
}

export async function apiCall(
  target: Target,
  c: Client,
  method: string,
  path: string,
  params: Record<string, string>,
  o: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const q = new URLSearchParams(params).toString();
  const at = Date.now();
  const r = await httpRequest(`${target.url}/api/v1${path}${method === 'GET' ? `?${q}` : ''}`, {
    method,
    headers: { authorization: c.auth, 'content-type': 'application/x-www-form-urlencoded', ...o.headers },
    body: method === 'GET' ? undefined : q,
    timeoutMs: o.timeoutMs ?? 20_000,
    agent: c.agent,
  });
  let body: Json = {};
  try {
    body = r.json() as Json;
  } catch {
    // not JSON: reported through the status
  }
  return { status: r.status, body, at, ms: Date.now() - at };
}

export interface Ack {
  readonly key: string;
  readonly id: number;
  readonly attempts: number;
  readonly at: number;
}

export interface Consumer {
  readonly client: Client;
  readonly label: string;
  readonly queueId: string;
  last: number;
  events: number;
  readonly messageIds: number[];
  readonly violations: string[];
  done: boolean;
}

/** What the clients were told. */
export class LoadLog {
  readonly acks: Ack[] = [];
  readonly statuses = new Map<number, number>();
  /** Answers other than 200 and 503 SERVICE_UNAVAILABLE to sends. */
  readonly unexpected: string[] = [];
  /** Every answer to a send (outage tests look at their timing). */
  readonly sendAnswers: Answer[] = [];
  readonly consumers: Consumer[] = [];
  /** The last message of the run: consumers stop once they have it. */
  finalMessageId = -1;

  count(status: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }

  statusSummary(): string {
    return [...this.statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(', ');
  }
}

const isUnavailable = (a: Answer) => a.status === 503 && a.body.result === 'error' && a.body.code === 'SERVICE_UNAVAILABLE';

/** Send one message, retrying with its Idempotency-Key through failures until acknowledged. */
export async function sendUntilAcked(target: Target, log: LoadLog, c: Client, channel: string, key: string): Promise<Ack> {
  for (let attempts = 1; ; attempts++) {
    try {
      const r = await apiCall(
        target,
        c,
        'POST',
        '/messages',
        { type: 'stream', to: channel, topic: c.name, content: `message ${key}` },
        { headers: { 'Idempotency-Key': key } },
      );
      log.count(r.status);
      log.sendAnswers.push(r);
      if (r.status === 200) {
        const ack = { key, id: r.body.id as number, attempts, at: Date.now() };
        log.acks.push(ack);
        return ack;
      }
      if (!isUnavailable(r)) log.unexpected.push(`POST /messages ${key}: ${r.status} ${JSON.stringify(r.body)}`);
    } catch {
      // The server died under the request, or is not listening yet: retry with the same key.
    }
    await sleep(50);
  }
}

/** Each client sends message after message until stop() is called; stop resolves when all are acknowledged. */
export function startSenders(target: Target, log: LoadLog, clients: readonly Client[], channel: string): { stop(): Promise<void> } {
  let stopped = false;
  const running = clients.map(async (c, i) => {
    for (let n = 0; !stopped; n++) await sendUntilAcked(target, log, c, channel, `s${i}-${n}`);
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}

/** Create a channel with the caller and these users subscribed. */
export async function createChannel(target: Target, c: Client, channel: string, userIds: readonly number[]): Promise<void> {
  const r = await apiCall(target, c, 'POST', '/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: channel }]),
    principals: JSON.stringify(userIds),
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
}

export async function registerConsumer(target: Target, c: Client, label: string, params: Record<string, string>): Promise<Consumer> {
  const r = await apiCall(target, c, 'POST', '/register', { fetch_event_types: '[]', ...params });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return { client: c, label, queueId: r.body.queue_id, last: r.body.last_event_id, events: 0, messageIds: [], violations: [], done: false };
}

/** Long-poll from last_event_id, resuming with it after every failure, until the final message or done. */
export async function consume(target: Target, log: LoadLog, q: Consumer): Promise<void> {
  while (!q.done) {
    try {
      const r = await apiCall(target, q.client, 'GET', '/events', { queue_id: q.queueId, last_event_id: String(q.last) }, { timeoutMs: 70_000 });
      log.count(r.status);
      if (isUnavailable(r)) {
        await sleep(50);
        continue;
      }
      if (r.status !== 200) {
        q.violations.push(`GET /events: ${r.status} ${JSON.stringify(r.body)}`);
        return;
      }
      for (const e of r.body.events as Json[]) {
        if (e.id <= q.last) q.violations.push(`event ${e.id} (${e.type}) after ${q.last}`);
        q.last = Math.max(q.last, e.id);
        if (e.type === 'heartbeat') continue;
        q.events++;
        if (e.type === 'message') q.messageIds.push(e.message.id);
      }
      if (q.messageIds.includes(log.finalMessageId)) return;
    } catch {
      if (target.stopping) return;
      await sleep(50);
    }
  }
}

/** Send the final message, then wait (up to 30 s) until every consumer has it; true when they all do. */
export async function finishConsumers(target: Target, log: LoadLog, owner: Client, channel: string, consuming: Promise<void>[]): Promise<boolean> {
  log.finalMessageId = (await sendUntilAcked(target, log, owner, channel, 'final')).id;
  const drained = await within(30_000, () => log.consumers.every((q) => q.messageIds.includes(log.finalMessageId) || q.violations.length > 0));
  for (const q of log.consumers) q.done = true;
  if (drained) await Promise.all(consuming);
  return drained;
}

/** Every message of the channel, oldest first, read page by page: content → ids. */
export async function storedMessages(target: Target, c: Client, channel: string): Promise<Map<string, number[]>> {
  const byContent = new Map<string, number[]>();
  let anchor = 'oldest';
  for (;;) {
    const r = await apiCall(target, c, 'GET', '/messages', {
      anchor,
      include_anchor: String(anchor === 'oldest'),
      num_before: '0',
      num_after: '1000',
      narrow: JSON.stringify([{ operator: 'channel', operand: channel }]),
      apply_markdown: 'false',
    });
    assert.is(r.status, 200, JSON.stringify(r.body));
    for (const m of r.body.messages as Json[]) {
      const ids = byContent.get(m.content) ?? [];
      ids.push(m.id);
      byContent.set(m.content, ids);
    }
    if (r.body.found_newest || r.body.messages.length === 0) return byContent;
    anchor = String(r.body.messages.at(-1).id);
  }
}

/** Acknowledged messages not stored exactly once under their acknowledged id, and stored ones never acknowledged. */
export function storageProblems(acks: readonly Ack[], stored: ReadonlyMap<string, number[]>): string[] {
  const problems: string[] = [];
  const acked = new Set<string>();
  for (const a of acks) {
    if (acked.has(a.key)) problems.push(`${a.key} acknowledged twice`);
    acked.add(a.key);
    const ids = stored.get(`message ${a.key}`) ?? [];
    if (ids.length !== 1 || ids[0] !== a.id) problems.push(`${a.key}: acknowledged as ${a.id}, stored as [${ids.join(', ')}]`);
  }
  for (const [content, ids] of stored) if (!acked.has(content.replace(/^message /, ''))) problems.push(`${content} [${ids.join(', ')}] was never acknowledged`);
  return problems;
}

/** Every acknowledged message exactly once in each consumer's message events, and no violation. */
export function assertConsumersComplete(log: LoadLog): void {
  const expected = log.acks.map((a) => a.id).sort((a, b) => a - b);
  for (const q of log.consumers) {
    assert.equal(q.violations, [], q.label);
    const seen = new Set<number>();
    const duplicates = q.messageIds.filter((id) => seen.has(id) || !seen.add(id));
    const missing = expected.filter((id) => !seen.has(id));
    assert.equal({ duplicates, missing }, { duplicates: [], missing: [] }, q.label);
    assert.is(q.messageIds.length, expected.length, q.label);
  }
}

export const consumerSummary = (log: LoadLog) =>
  log.consumers.map((q) => `  ${q.label}: ${q.events} events, ${q.messageIds.length} messages, ${q.violations.length} violations`);

export const stats = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `min ${s[0]} ms, median ${s[Math.floor(s.length / 2)]} ms, max ${s.at(-1)} ms`;
};

/** Wait until `cond` holds (polling), or until `ms` passed; true when it held. */
export async function within(ms: number, cond: () => boolean): Promise<boolean> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) return false;
    await sleep(10);
  }
  return true;
}
