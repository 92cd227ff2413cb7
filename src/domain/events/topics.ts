// Convention 9: clients that do not declare empty_topic_name see the organization's display
// name wherever a topic is the empty string.

export const TOPIC_FIELDS = ['topic', 'subject', 'orig_topic', 'orig_subject', 'topic_name', 'prev_topic'] as const;

/** Copy of `o` with empty-string topic fields replaced by the display name. */
export function withDisplayTopics<T extends Record<string, unknown>>(o: T, displayName: string): T {
  let out: Record<string, unknown> | null = null;
  for (const f of TOPIC_FIELDS) {
    if (o[f] === '') {
      out ??= { ...o };
      out[f] = displayName;
    }
  }
  return (out ?? o) as T;
}

/** A topic parameter equal to the display name means the empty topic. */
export function topicFromClient(topic: string, displayName: string): string {
  return topic === displayName ? '' : topic;
}
