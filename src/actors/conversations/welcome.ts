// Welcome Bot's direct message to an account created through an invitation: the invitation's
// custom text, or the organization's (welcome_message_custom_text). Sent after the account
// exists, outside the realm actor (a send belongs to the conversation's owner).
import { renderMarkdown } from '../../domain/markdown/index.js';
import { isMeMessage } from '../../domain/message-rules.js';
import type { RealmHandle } from '../realm/actor.js';
import { dmKeyOf } from '../realm/channel-index.js';
import { realmMarkdownContext, renderData } from '../realm/markdown-context.js';

/** Send `text` from Welcome Bot to the user; nothing when the text is empty. Returns the message id. */
export async function sendWelcomeMessage(realm: RealmHandle, userId: number, text: string): Promise<number | null> {
  if (text.trim() === '') return null;
  const botId = await realm.ask('bot.welcomeBot', null);
  const state = realm.state;
  const bot = state.user(botId)!;
  const data = renderData(state);
  const r = renderMarkdown(text, realmMarkdownContext(state, data, bot));
  const userIds = [botId, userId];
  const key = dmKeyOf(userIds);
  const { id } = await realm.conversations.ask({ kind: 'dm', dmKey: key }, 'send', {
    senderId: botId,
    dm: { key, userIds },
    content: text,
    rendered: { html: r.html, hasLink: r.hasLink, hasImage: r.hasImage, hasAttachment: r.hasAttachment, uploadPathIds: r.uploadPathIds },
    isMeMessage: isMeMessage(text, r.html),
    mentionedUserIds: [],
    streamWildcard: false,
    topicWildcard: false,
    readBySender: true,
    client: 'Internal',
    linkifiers: data.linkifiers,
  });
  return id;
}
