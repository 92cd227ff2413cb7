// Personal message flags: stored as one bit set per user_messages row, named in the API.
// The bit values are part of the schema (partial indexes in the migrations test `flags & 1`,
// `flags & 2` and `flags & 56`); never renumber them.

export const FLAG_BITS = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  stream_wildcard_mentioned: 16,
  topic_wildcard_mentioned: 32,
  has_alert_word: 64,
  historical: 128,
} as const;
export type FlagName = keyof typeof FLAG_BITS;

/**
 * Internal bit, never shown to clients: the row belongs to a direct message. It lets a partial
 * index find a user's direct messages without scanning their channel history.
 */
export const DM_BIT = 256;

/** Mentioned directly, through a group, or by a wildcard. */
export const MENTION_BITS = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

/** Flags a user may add or remove through the API. */
export const EDITABLE_FLAGS: ReadonlySet<string> = new Set(['read', 'starred', 'collapsed']);

/** Every flag name the API knows, including the deprecated `wildcard_mentioned`. */
export const ALL_FLAG_NAMES: ReadonlySet<string> = new Set([...Object.keys(FLAG_BITS), 'wildcard_mentioned']);

/** The API's list of flags for a bit set, in a stable order. */
export function flagNames(bits: number): string[] {
  const out: string[] = [];
  for (const [name, bit] of Object.entries(FLAG_BITS)) if (bits & bit) out.push(name);
  // Deprecated alias that clients before the split still read.
  if (bits & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) out.push('wildcard_mentioned');
  return out;
}

export function flagBit(name: string): number {
  return (FLAG_BITS as Record<string, number>)[name] ?? 0;
}
