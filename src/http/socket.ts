// The events WebSocket (beyond the spec): `GET /api/v1/events/socket?queue_id=Q&last_event_id=N`
// upgraded to a WebSocket, authenticated like every call (Basic header) or with a single-use
// `ticket` from POST /api/v1/events/socket_ticket. The server pushes `{"events":[...]}` frames;
// the client sends `{"ack": N}` to let the server forget events up to N. Protocol in README.md.
import { z } from 'zod';
import type { App } from '../app.js';
import type { RealmQueues } from '../actors/queues/realm-queues.js';
import type { EventQueue, QueueSocket } from '../actors/queues/event-queue.js';
import { errors, isApiError } from '../domain/errors.js';
import { authenticate } from './auth.js';
import { parseParams } from './body.js';
import { errorResponse, type ApiRequest } from './dispatch.js';
import { ownQueue } from './endpoints/events.js';
import { p, validateParams } from './params.js';
import type { ServerSocket, SocketRoute, SocketSession } from './uws.js';

export const EVENTS_SOCKET_PATH = '/api/v1/events/socket';

const socketParams = z.object({
  queue_id: p.string(),
  last_event_id: p.int().default('-1'),
  ticket: p.string().optional(),
});

const ackMessage = z.object({ ack: z.number().int() });

class EventsSession implements SocketSession {
  private link: QueueSocket | null = null;

  constructor(
    private readonly queues: RealmQueues,
    private readonly queue: EventQueue,
    private readonly lastEventId: number,
  ) {}

  open(socket: ServerSocket): void {
    this.link = { send: (text) => socket.send(text), close: (code, reason) => socket.close(code, reason) };
    this.queues.attach(this.queue, this.link, this.lastEventId);
  }

  message(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.link?.close(1007, 'Messages must be JSON');
      return;
    }
    const m = ackMessage.safeParse(parsed);
    if (!m.success) {
      this.link?.close(1008, 'Expected {"ack": <event id>}');
      return;
    }
    this.queues.ack(this.queue, m.data.ack);
  }

  close(): void {
    if (this.link) this.queues.detach(this.queue, this.link);
    this.link = null;
  }
}

export function eventsSocketRoute(app: App): SocketRoute {
  return {
    maxBackpressure: app.config.queues.socketMaxBackpressureBytes,
    async accept(req: ApiRequest) {
      try {
        const realm = await app.realms.resolve(req.headers.host);
        if (!realm) throw errors.realmNotFound();
        const { values } = validateParams(socketParams, parseParams(req.query, null, undefined).params);
        let userId: number;
        if (req.headers.authorization) {
          userId = authenticate(app.secret, realm, req.headers.authorization).id;
        } else if (values.ticket) {
          const id = app.socketTickets.redeem(values.ticket, realm.id);
          const user = id === null ? undefined : realm.state.user(id);
          if (!user?.is_active) throw errors.badRequest('Invalid or expired ticket');
          userId = user.id;
        } else {
          throw errors.notLoggedIn();
        }
        const queue = await ownQueue(realm, userId, values.queue_id);
        return { ok: true as const, session: new EventsSession(realm.queues, queue, values.last_event_id) };
      } catch (e) {
        if (!isApiError(e)) app.log.error({ err: e }, 'events socket upgrade failed');
        return { ok: false as const, response: errorResponse(isApiError(e) ? e : errors.internal('socket')) };
      }
    },
  };
}
