// The register-consistency check (STYLE.md): fetch state with POST /register, run an action,
// collect the events it produced, apply them to the earlier state with the client reducers, and
// require the result to equal a fresh POST /register. Every resource's tests reuse this.
import * as assert from 'uvu/assert';
import { assertSuccess } from './assert.js';
import { applyEvents } from './reducers/index.js';
import type { ClientEventJson, RegisterState } from './reducers/types.js';
import type { Params, TestUser } from './server.js';

/**
 * Members that legitimately differ between two registrations. Clients take
 * presence_last_update_id from their own presence fetches, never from events.
 */
const VOLATILE = new Set(['queue_id', 'last_event_id', 'server_timestamp', 'presence_last_update_id', 'result', 'msg']);

export interface ConsistencyOptions {
  /** fetch_event_types (and event_types unless eventTypes is given). */
  readonly types?: readonly string[];
  readonly eventTypes?: readonly string[];
  readonly registerParams?: Params;
}

export async function registerState(user: TestUser, o: ConsistencyOptions = {}): Promise<RegisterState> {
  const params: Params = { ...o.registerParams };
  if (o.types) params.fetch_event_types = [...o.types];
  if (o.eventTypes ?? o.types) params.event_types = [...(o.eventTypes ?? o.types)!];
  return assertSuccess(await user.post('/api/v1/register', params));
}

/** Poll without blocking until the queue has nothing more (events are released after commit). */
export async function drainEvents(user: TestUser, queueId: string, after = -1): Promise<ClientEventJson[]> {
  const out: ClientEventJson[] = [];
  let last = after;
  for (let quiet = 0; quiet < 2; ) {
    const r = assertSuccess(await user.get('/api/v1/events', { queue_id: queueId, last_event_id: last, dont_block: true }));
    const events = (r.events as ClientEventJson[]).filter((e) => e.type !== 'heartbeat');
    if (events.length === 0) {
      quiet++;
      await new Promise((res) => setTimeout(res, 20));
      continue;
    }
    quiet = 0;
    out.push(...events);
    last = (r.events as ClientEventJson[]).at(-1)!.id;
  }
  return out;
}

function normalize(state: RegisterState): RegisterState {
  const out: RegisterState = {};
  for (const [k, v] of Object.entries(state)) if (!VOLATILE.has(k)) out[k] = sortDeep(v);
  return out;
}

/** Arrays of objects with an id are compared as sets (clients key them by id). */
function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) {
    const items = v.map(sortDeep);
    const key = (x: unknown) => {
      if (x && typeof x === 'object') {
        const o = x as Record<string, unknown>;
        return String(o.user_id ?? o.id ?? o.stream_id ?? o.group_id ?? JSON.stringify(o));
      }
      return JSON.stringify(x);
    };
    return items.every((x) => x && typeof x === 'object') ? items.sort((a, b) => key(a).localeCompare(key(b), 'en', { numeric: true })) : items;
  }
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sortDeep(x)]));
  }
  return v;
}

/** Run `action`; assert that register-state + its events == a fresh register. Returns the events. */
export async function expectConsistent(
  user: TestUser,
  action: () => Promise<unknown>,
  o: ConsistencyOptions = {},
): Promise<ClientEventJson[]> {
  const before = await registerState(user, o);
  await action();
  const events = await drainEvents(user, before.queue_id);
  const applied = applyEvents(before, events, user.id);
  const fresh = await registerState(user, o);
  assert.equal(normalize(applied), normalize(fresh), `register state + ${events.length} events differs from a fresh register`);
  await user.delete('/api/v1/events', { queue_id: before.queue_id });
  await user.delete('/api/v1/events', { queue_id: fresh.queue_id });
  return events;
}
