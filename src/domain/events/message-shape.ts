// A canonical message object (raw and rendered content, the avatar URL as for clients that do
// not compute avatars) shaped for one client: content by apply_markdown, avatar_url by
// client_extavatar, the empty topic by empty_topic_name. Message events and GET /messages share it.
import { clientComputesAvatar } from '../avatar.js';
import { withDisplayTopics } from './topics.js';

export interface MessageShapeOptions {
  readonly applyMarkdown: boolean;
  readonly clientExtavatar: boolean;
  /** The sender's email_address_visibility: a client computes the avatar only from a visible email. */
  readonly senderEmailVisibility: number;
  /** null when the client handles the empty topic itself (empty_topic_name, allow_empty_topic_name). */
  readonly emptyTopicDisplayName: string | null;
}

export function shapeMessage(m: Readonly<Record<string, unknown>>, o: MessageShapeOptions): Record<string, unknown> {
  const { rendered_content: rendered, _sender_avatar_source: avatarSource, ...rest } = m;
  let shown: Record<string, unknown> = {
    ...rest,
    content: o.applyMarkdown ? rendered : m.content,
    content_type: o.applyMarkdown ? 'text/html' : 'text/x-markdown',
  };
  if (clientComputesAvatar({ avatar_source: String(avatarSource), settings: { email_address_visibility: o.senderEmailVisibility } }, o.clientExtavatar)) {
    shown.avatar_url = null;
  }
  // Direct messages have no topic: their empty subject stays empty.
  if (o.emptyTopicDisplayName !== null && m.type === 'stream') shown = withDisplayTopics(shown, o.emptyTopicDisplayName);
  return shown;
}
