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

/** Distinct descriptors already seen (stored ones by their JSON): most clients register alike. */
const known = new Map<string, QueueDescriptor>();
const KNOWN_MAX = 1024;

function remember(key: string, d: QueueDescriptor): QueueDescriptor {
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(key, d);
  return d;
}

/**
 * A stored descriptor (its jsonb column as text), validated. At start-up every queue's descriptor
 * is read (10,000 queues: 10,000 zod parses of a handful of shapes), so equal ones are parsed once
 * and shared, found by their text; a descriptor is never changed after registration.
 */
export function parseDescriptor(text: string): QueueDescriptor {
  const key = `stored:${text}`;
  return known.get(key) ?? remember(key, sharedDescriptor(descriptorSchema.parse(JSON.parse(text))));
}

/** An equal descriptor already in use, or this one: queues alike share one (with its arrays). */
export function sharedDescriptor(d: QueueDescriptor): QueueDescriptor {
  const key = `live:${JSON.stringify(d)}`;
  return known.get(key) ?? remember(key, d);
}

/** Events every queue gets whatever its event_types. */
const ALWAYS = new Set(['heartbeat']);

export function wantsType(d: QueueDescriptor, type: string): boolean {
  return d.eventTypes === null || ALWAYS.has(type) || d.eventTypes.includes(type);
}
