// What a queue is, persisted so it can be rebuilt after a restart: the client's filters,
// capabilities and options from POST /register.
import { z } from 'zod';
import { CAPABILITY_KEYS, NO_CAPABILITIES, type Capabilities } from '../../domain/client-capabilities.js';
import type { NarrowTerm } from '../../domain/event-narrow.js';

export interface QueueDescriptor {
  /** null = every event type. */
  readonly eventTypes: readonly string[] | null;
  readonly narrow: readonly NarrowTerm[];
  readonly allPublicStreams: boolean;
  readonly capabilities: Capabilities;
  readonly applyMarkdown: boolean;
  readonly clientExtavatar: boolean;
}

export const descriptorSchema = z.object({
  eventTypes: z.array(z.string()).nullable(),
  narrow: z.array(z.object({ operator: z.string(), operand: z.string(), negated: z.boolean() })),
  allPublicStreams: z.boolean(),
  capabilities: z
    .record(z.boolean())
    .transform((c) => ({ ...NO_CAPABILITIES, ...Object.fromEntries(CAPABILITY_KEYS.filter((k) => k in c).map((k) => [k, c[k]!])) })),
  applyMarkdown: z.boolean(),
  clientExtavatar: z.boolean(),
});

/** Events every queue gets whatever its event_types. */
const ALWAYS = new Set(['heartbeat']);

export function wantsType(d: QueueDescriptor, type: string): boolean {
  return d.eventTypes === null || ALWAYS.has(type) || d.eventTypes.includes(type);
}
