// The renderer's inputs and outputs. The context is how the caller (the realm actor, which owns
// the cached users, groups, channels, emoji and linkifiers) answers the renderer's lookups; the
// renderer itself holds no state between calls.

export interface MarkdownContext {
  /** Case-insensitive; active users only. */
  userByName(name: string): { id: number; fullName: string } | null;
  userById(id: number): { id: number; fullName: string } | null;
  groupByName(name: string): { id: number; name: string } | null;
  /** Channels the sender may link to. */
  channelByName(name: string): { id: number; name: string } | null;
  realmEmoji(name: string): { id: string; name: string; url: string } | null;
  /** In the realm's order: earlier linkifiers win where matches overlap. */
  readonly linkifiers: ReadonlyArray<{ id: number; pattern: string; urlTemplate: string }>;
}

export interface RenderResult {
  html: string;
  /** Direct, non-silent user mentions, deduplicated, in order of first mention. */
  mentionedUserIds: number[];
  /** Non-silent group mentions, deduplicated. */
  mentionedGroupIds: number[];
  /** A non-silent @**all**, @**everyone**, @**channel** or @**stream**. */
  streamWildcard: boolean;
  /** A non-silent @**topic**. */
  topicWildcard: boolean;
  hasLink: boolean;
  hasImage: boolean;
  /** Links to /user_uploads/ (relative, or absolute to any host). */
  hasAttachment: boolean;
  /** The path id of every /user_uploads/<path_id> referenced, deduplicated. */
  uploadPathIds: string[];
  /** Every link target written or linkified in the message, deduplicated, in order. */
  links: string[];
}

/** A context that knows nobody: for descriptions, previews and tests. */
export const emptyMarkdownContext: MarkdownContext = Object.freeze({
  userByName: () => null,
  userById: () => null,
  groupByName: () => null,
  channelByName: () => null,
  realmEmoji: () => null,
  linkifiers: Object.freeze([]),
});
