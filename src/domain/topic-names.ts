// Topic names: how a topic parameter becomes the stored name (convention 9, truncation), the
// channel's topics policy, and resolved topics (the check-mark prefix).
import { errors } from './errors.js';
import { firstUnprintable, type TopicsPolicy } from './channels.js';
import { topicFromClient } from './events/topics.js';

export const MAX_TOPIC_LENGTH = 60;
export const RESOLVED_TOPIC_PREFIX = '\u2714 ';
/** What older clients send for "no topic"; means the empty topic. */
export const NO_TOPIC_LEGACY = '(no topic)';
const TRUNCATION_MARK = '...';

/** At most MAX_TOPIC_LENGTH code points, ending in "..." when cut. */
export function truncateTopic(topic: string): string {
  const chars = [...topic];
  if (chars.length <= MAX_TOPIC_LENGTH) return topic;
  return chars.slice(0, MAX_TOPIC_LENGTH - TRUNCATION_MARK.length).join('') + TRUNCATION_MARK;
}

/**
 * A topic parameter of a send or an edit as stored: trimmed, the display name of the empty topic
 * and "(no topic)" meaning the empty topic, printable, truncated.
 */
export function topicFromParam(raw: string, emptyTopicDisplayName: string): string {
  const t = topicFromClient(raw.trim(), emptyTopicDisplayName);
  const topic = t === NO_TOPIC_LEGACY ? '' : t;
  const bad = firstUnprintable(topic);
  if (bad !== null) throw errors.badRequest(`Invalid character in topic, at position ${bad}!`);
  return truncateTopic(topic);
}

/** The policy in force: a channel's own, or the organization's when it inherits. */
export function effectiveTopicsPolicy(channelPolicy: TopicsPolicy, realmPolicy: 'allow_empty_topic' | 'disable_empty_topic'): Exclude<TopicsPolicy, 'inherit'> {
  return channelPolicy === 'inherit' ? realmPolicy : channelPolicy;
}

/** Throws when the topic is not allowed in a channel under this policy. */
export function checkTopicAllowed(topic: string, policy: Exclude<TopicsPolicy, 'inherit'>, emptyTopicDisplayName: string): void {
  if (topic === '' && policy === 'disable_empty_topic') throw errors.emptyTopicNotAllowed(emptyTopicDisplayName);
  if (topic !== '' && policy === 'empty_topic_only') throw errors.namedTopicsNotAllowed(emptyTopicDisplayName);
}

export const isResolved = (topic: string): boolean => topic.startsWith(RESOLVED_TOPIC_PREFIX);

/** The topic without any leading check marks (what unresolving gives back). */
export function unresolvedName(topic: string): string {
  let t = topic;
  while (t.startsWith(RESOLVED_TOPIC_PREFIX)) t = t.slice(RESOLVED_TOPIC_PREFIX.length);
  return t;
}

/** Is renaming `from` to `to` (before truncation: `toRaw`) a pure resolve or unresolve? */
export function resolveChange(from: string, to: string, toRaw: string): 'resolved' | 'unresolved' | null {
  if (isResolved(to) && !isResolved(from) && toRaw.slice(RESOLVED_TOPIC_PREFIX.length) === from) return 'resolved';
  if (isResolved(from) && !isResolved(to) && unresolvedName(from) === to) return 'unresolved';
  return null;
}
