// Short-lived, single-use tickets that let a browser (which cannot set an Authorization header
// on a WebSocket) open the events socket. Kept in memory: a restart simply invalidates them.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';

interface Ticket {
  readonly realmId: number;
  readonly userId: number;
  readonly expires: number;
}

export class SocketTickets {
  private readonly tickets = new Map<string, Ticket>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  issue(realmId: number, userId: number): string {
    const now = this.clock.now();
    if (this.tickets.size > 1000) for (const [k, t] of this.tickets) if (t.expires <= now) this.tickets.delete(k);
    const ticket = randomBytes(24).toString('base64url');
    this.tickets.set(ticket, { realmId, userId, expires: now + this.ttlMs });
    return ticket;
  }

  /** The user the ticket was issued to, once; null when unknown, used, expired or for another realm. */
  redeem(ticket: string, realmId: number): number | null {
    const t = this.tickets.get(ticket);
    if (!t) return null;
    this.tickets.delete(ticket);
    return t.realmId === realmId && t.expires > this.clock.now() ? t.userId : null;
  }
}
