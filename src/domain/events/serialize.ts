// An event as one kind of client receives it: presented (present.ts) and in JSON.
//
// JSON.stringify takes 0.5–0.8 µs for an event as small as a typing notification on the
// machines Parley is measured on, and presenting one through the general path (spreads, the
// internal-field and display-topic passes) as long again. A typing event is the one event of
// every POST /typing, so its JSON is written here from the payload's known fields. Any other
// shape, and every other type, takes the general path; the results are the same text (tested
// against it).
import type { PublishedEvent } from '../../actors/event-sequencer.js';
import { presentEvent } from './present.js';
import type { ClientEvent, PresentContext } from './view.js';

export interface SerializedEvent {
  readonly event: ClientEvent;
  readonly json: string;
}

/** Every client event `e` becomes for this client, each with its JSON (JSON.stringify's text). */
export function serializeEvent(e: PublishedEvent, ctx: PresentContext): SerializedEvent[] {
  if (e.type === 'typing' && e.perUser === undefined) {
    const typing = serializeTyping(e.id, e.payload, ctx);
    if (typing !== null) return typing;
  }
  return presentEvent(e, ctx).map((event) => ({ event, json: JSON.stringify(event) }));
}

interface Person {
  readonly user_id: number;
  readonly email: string;
}

/** The payload's keys as the typing endpoint builds them (the schema's order). */
const STREAM_KEYS = ['op', 'message_type', 'sender', 'stream_id', 'topic'];
const DIRECT_KEYS = ['op', 'message_type', 'sender', 'recipients'];
const PERSON_KEYS = ['user_id', 'email'];

/** Whether `o`'s own keys are exactly `keys`, in that order (a plain object's order is JSON's). */
function keysAre(o: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const k in o) if (k !== keys[i++]) return false;
  return i === keys.length;
}

function isPerson(u: unknown): u is Person {
  return typeof u === 'object' && u !== null && keysAre(u, PERSON_KEYS) && Number.isSafeInteger((u as Person).user_id) && typeof (u as Person).email === 'string';
}

const quoted = JSON.stringify as (s: string) => string;
const personJson = (u: Person): string => `{"user_id":${u.user_id},"email":${quoted(u.email)}}`;
const head = (op: string, kind: string, sender: Person): string => `{"type":"typing","op":"${op}","message_type":"${kind}","sender":${personJson(sender)}`;

/**
 * A typing event of a known shape, as presentEvent and JSON.stringify would give it: a channel's
 * only to clients with stream_typing_notifications, an empty topic as the organization's display
 * name to clients without empty_topic_name. Null for any other shape.
 */
function serializeTyping(id: number, p: Record<string, unknown>, ctx: PresentContext): SerializedEvent[] | null {
  const { op, message_type: kind, sender } = p;
  if ((op !== 'start' && op !== 'stop') || !isPerson(sender)) return null;
  const caps = ctx.view.capabilities;
  if (kind === 'stream') {
    let { stream_id: channelId, topic } = p;
    if (!keysAre(p, STREAM_KEYS) || !Number.isSafeInteger(channelId) || typeof topic !== 'string') return null;
    if (!caps.stream_typing_notifications) return [];
    if (topic === '' && !caps.empty_topic_name) topic = ctx.realm.realm.settings.empty_topic_display_name;
    const event: ClientEvent = { type: 'typing', op, message_type: kind, sender, stream_id: channelId, topic, id };
    const json = `${head(op, kind, sender)},"stream_id":${channelId as number},"topic":${quoted(topic as string)},"id":${id}}`;
    return [{ event, json }];
  }
  const recipients = p.recipients;
  if (kind !== 'direct' || !keysAre(p, DIRECT_KEYS) || !Array.isArray(recipients)) return null;
  let list = '';
  for (let i = 0; i < recipients.length; i++) {
    const u: unknown = recipients[i];
    if (!isPerson(u)) return null;
    list += i === 0 ? personJson(u) : `,${personJson(u)}`;
  }
  const event: ClientEvent = { type: 'typing', op, message_type: kind, sender, recipients, id };
  return [{ event, json: `${head(op, kind, sender)},"recipients":[${list}],"id":${id}}` }];
}
