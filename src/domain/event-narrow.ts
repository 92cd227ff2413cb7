// The `narrow` of POST /register: a plain filter on the message events a queue receives (it does
// not widen what the user may receive). Pairs [operator, operand], or {operator, operand, negated}.
import { z } from 'zod';
import { errors } from './errors.js';

export type NarrowTerm = { readonly operator: string; readonly operand: string; readonly negated: boolean };

export const narrowSchema = z.array(
  z.union([
    z.tuple([z.string(), z.string()]).transform(([operator, operand]) => ({ operator, operand, negated: false })),
    z.object({ operator: z.string(), operand: z.union([z.string(), z.number()]), negated: z.boolean().default(false) })
      .transform((t) => ({ operator: t.operator, operand: String(t.operand), negated: t.negated })),
  ]),
);

const IS_OPERANDS = new Set(['dm', 'private', 'mentioned', 'starred', 'alerted', 'channel', 'stream']);
const OPERATORS = new Set(['is', 'channel', 'stream', 'topic', 'subject', 'sender', 'dm', 'pm-with', 'dm-including', 'id']);

/** Reject what a queue cannot filter on; normalises aliases. */
export function checkEventNarrow(terms: readonly NarrowTerm[]): NarrowTerm[] {
  return terms.map((t) => {
    const operator = t.operator.startsWith('-') ? t.operator.slice(1) : t.operator;
    const negated = t.negated || t.operator.startsWith('-');
    if (!OPERATORS.has(operator)) throw errors.badRequest(`Operator ${operator} not supported.`);
    if (operator === 'is' && !IS_OPERANDS.has(t.operand)) throw errors.badRequest(`Operand ${t.operand} not supported for is.`);
    const canonical = operator === 'stream' ? 'channel' : operator === 'subject' ? 'topic' : operator === 'pm-with' ? 'dm' : operator;
    return { operator: canonical, operand: t.operand, negated };
  });
}

/** The fields of a message event that narrows look at (as presented to the client). */
interface NarrowableMessage {
  readonly type: string;
  readonly id: number;
  readonly stream_id?: number;
  readonly display_recipient: string | ReadonlyArray<{ id: number; email: string }>;
  readonly subject: string;
  readonly sender_id: number;
  readonly sender_email: string;
}

const sameUser = (operand: string, id: number, email: string) =>
  operand === String(id) || operand.toLowerCase() === email.toLowerCase();

function userList(operand: string): string[] {
  return operand
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function matches(t: NarrowTerm, m: NarrowableMessage, flags: readonly string[], emptyTopicName: string): boolean {
  const isStream = m.type === 'stream';
  switch (t.operator) {
    case 'is':
      switch (t.operand) {
        case 'dm':
        case 'private':
          return !isStream;
        case 'channel':
        case 'stream':
          return isStream;
        case 'mentioned':
          return flags.some((f) => f === 'mentioned' || f.endsWith('wildcard_mentioned'));
        case 'starred':
          return flags.includes('starred');
        case 'alerted':
          return flags.includes('has_alert_word');
      }
      return false;
    case 'channel':
      return isStream && (t.operand === String(m.stream_id) || String(m.display_recipient).toLowerCase() === t.operand.toLowerCase());
    case 'topic': {
      const operand = t.operand === emptyTopicName ? '' : t.operand;
      const subject = m.subject === emptyTopicName ? '' : m.subject;
      return isStream && subject.toLowerCase() === operand.toLowerCase();
    }
    case 'sender':
      return sameUser(t.operand, m.sender_id, m.sender_email);
    case 'id':
      return t.operand === String(m.id);
    case 'dm':
    case 'dm-including': {
      if (isStream || typeof m.display_recipient === 'string') return false;
      const people = m.display_recipient;
      const wanted = userList(t.operand);
      if (t.operator === 'dm-including') return wanted.every((w) => people.some((p) => sameUser(w, p.id, p.email)));
      // dm:a,b matches the conversation of exactly those users (plus the viewer).
      const others = people.filter((p) => !wanted.some((w) => sameUser(w, p.id, p.email)));
      return wanted.every((w) => people.some((p) => sameUser(w, p.id, p.email))) && others.length <= 1;
    }
  }
  return false;
}

/**
 * Whether a presented event passes a queue's narrow: message events are matched against every
 * term, every other event type passes. A function of the queue's shared descriptor, not a
 * predicate per queue (a closure and a field on each of tens of thousands of queues).
 */
export function eventMatchesNarrow(terms: readonly NarrowTerm[], event: { type: string; message?: unknown; flags?: unknown }, emptyTopicName: string): boolean {
  if (terms.length === 0 || event.type !== 'message') return true;
  const m = event.message as NarrowableMessage;
  const flags = (event.flags as string[] | undefined) ?? [];
  return terms.every((t) => matches(t, m, flags, emptyTopicName) !== t.negated);
}
