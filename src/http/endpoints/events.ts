// POST /register (endpoint 21), GET /events (long-poll), DELETE /events, and the ticket browsers
// use to open the events WebSocket.
import { z } from 'zod';
import { spectatorsAllowed } from '../../actors/realm/channel-view.js';
import type { RealmHandle } from '../../actors/realm/actor.js';
import type { EventQueue } from '../../actors/queues/event-queue.js';
import { badQueue } from '../../actors/queues/queue-actor.js';
import { capabilitiesSchema, NO_CAPABILITIES } from '../../domain/client-capabilities.js';
import { errors } from '../../domain/errors.js';
import { checkEventNarrow, narrowSchema } from '../../domain/event-narrow.js';
import { isGuest } from '../../domain/roles.js';
import { SERVICE_FEATURE_LEVEL, SERVICE_MERGE_BASE, SERVICE_VERSION } from '../../version.js';
import { Later, publicEndpoint, userEndpoint, type RequestContext } from '../endpoint.js';
import { p } from '../params.js';
import { stateProviders } from '../register/index.js';
import { baseState, type RegisterOptions, type StateContext } from '../register/state.js';

const stringList = () => p.json(z.array(z.string()));

const registerParams = z.object({
  apply_markdown: p.bool().default('false'),
  client_extavatar: p.bool().optional(),
  include_subscribers: p.enum(['true', 'false', 'partial']).default('false'),
  slim_presence: p.bool().default('false'),
  presence_history_limit_days: p.int({ min: 0 }).optional(),
  event_types: stringList().optional(),
  fetch_event_types: stringList().optional(),
  all_public_streams: p.bool().default('false'),
  client_capabilities: p.json(capabilitiesSchema).optional(),
  narrow: p.json(narrowSchema).default('[]'),
  idle_queue_timeout: p.int({ min: 1 }).optional(),
});

export const register = publicEndpoint(registerParams, async (ctx, params) => {
  const { realm, app } = ctx;
  const user = ctx.user;
  if (!user) {
    if (!spectatorsAllowed(realm.state)) throw errors.notLoggedIn();
    if (params.client_extavatar === true) throw errors.badRequest("Invalid 'client_extavatar' parameter for anonymous request");
    if (params.include_subscribers === 'true') throw errors.badRequest("Invalid 'include_subscribers' parameter for anonymous request");
  }
  if (params.all_public_streams && user && isGuest(user.role)) throw errors.badRequest('User not authorized for this query');
  const narrow = checkEventNarrow(params.narrow);
  const options: RegisterOptions = {
    applyMarkdown: params.apply_markdown,
    clientExtavatar: params.client_extavatar ?? user !== null,
    includeSubscribers: params.include_subscribers,
    slimPresence: params.slim_presence,
    presenceHistoryLimitDays: params.presence_history_limit_days ?? 14,
    allPublicStreams: params.all_public_streams,
    capabilities: params.client_capabilities ?? NO_CAPABILITIES,
  };
  const q = app.config.queues;
  const idle = Math.min(params.idle_queue_timeout ?? q.defaultIdleTimeoutSecs, q.maxIdleTimeoutSecs);
  const eventTypes = params.event_types ?? null;
  const fetchTypes = params.fetch_event_types ?? eventTypes;

  // The queue exists before any state is read: nothing between the snapshot and the first
  // GET /events can be missed (at worst a change is both in the state and an event).
  const queue = user
    ? await realm.queues.create(
        user.id,
        {
          eventTypes,
          narrow,
          allPublicStreams: options.allPublicStreams,
          capabilities: options.capabilities,
          applyMarkdown: options.applyMarkdown,
          clientExtavatar: options.clientExtavatar,
        },
        idle,
      )
    : null;
  const wants = (type: string) => fetchTypes === null || fetchTypes.includes(type);
  const sctx: StateContext = { app, realm, user, options, wants };
  const parts = await Promise.all(
    stateProviders.filter((sp) => sp.types.some(wants) && (user !== null || sp.spectators)).map((sp) => sp.fetch(sctx)),
  );
  // One object, each part's members copied into it once (spreads copied them twice, a hundred-odd
  // of them for the realm section alone).
  const out: Record<string, unknown> = {
    queue_id: queue?.id ?? null,
    last_event_id: -1,
    service_feature_level: SERVICE_FEATURE_LEVEL,
    service_version: SERVICE_VERSION,
    service_merge_base: SERVICE_MERGE_BASE,
  };
  for (const part of [baseState(sctx, idle), ...parts]) for (const k in part) out[k] = part[k];
  return out;
});

/** The caller's queue, or BAD_EVENT_QUEUE_ID (also for another user's queue). */
export async function ownQueue(realm: RealmHandle, userId: number, queueId: string): Promise<EventQueue> {
  const queue = await realm.queues.get(queueId);
  if (!queue || queue.userId !== userId) throw badQueue(queueId);
  return queue;
}

export const getEvents = userEndpoint(
  z.object({
    queue_id: p.string(),
    last_event_id: p.int().default('-1'),
    dont_block: p.bool().default('false'),
  }),
  (ctx, params) => {
    const { realm } = ctx;
    return ownQueue(realm, ctx.user.id, params.queue_id).then((queue) => pollLater(realm, queue, params.last_event_id, params.dont_block));
  },
);

/**
 * The poll, answered later: while it is parked, what waits is the request's exchange, which the
 * queue answers itself and whose hang-up it listens to; no promise, closure or request.
 */
function pollLater(realm: RealmHandle, queue: EventQueue, lastEventId: number, dontBlock: boolean): Later {
  return new Later((to) => realm.queues.poll(queue, lastEventId, dontBlock, to));
}

export const deleteQueue = userEndpoint(z.object({ queue_id: p.string() }), async (ctx, params) => {
  const queue = await ownQueue(ctx.realm, ctx.user.id, params.queue_id);
  await ctx.realm.queues.end(queue, 'deleted');
  return {};
});

export const createSocketTicket = userEndpoint(z.object({}), async (ctx: RequestContext & { realm: RealmHandle; user: { id: number } }) => {
  const ttl = ctx.app.config.queues.socketTicketTtlSecs;
  return { ticket: ctx.app.socketTickets.issue(ctx.realm.id, ctx.user.id), expires_in: ttl };
});
