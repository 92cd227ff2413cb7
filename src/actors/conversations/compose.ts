// A message as a user asks for it (POST /messages, a scheduled message when it is due): its
// audience resolved, the sender's rights, topic and mentions checked, its content rendered, and
// the owner of the conversation asked to store it.
import { isMeMessage } from '../../domain/message-rules.js';
import { renderMarkdown, type RenderResult } from '../../domain/markdown/index.js';
import { topicFromParam } from '../../domain/topic-names.js';
import type { RealmHandle } from '../realm/actor.js';
import { realmMarkdownContext, renderData, type RenderData } from '../realm/markdown-context.js';
import type { UserRecord } from '../realm/state.js';
import type { ConversationKey } from './conversations.js';
import type { SendInput } from './send.js';
import {
  checkCanSendToChannel,
  checkDmPermission,
  checkMentions,
  checkTopicCreation,
  checkTopicForChannel,
  dmKeyFor,
  resolveChannel,
  resolveDmRecipients,
} from './send-rules.js';

/** Where a message goes: a channel (by id or name) and a topic as given, or direct-message recipients. */
export type MessageTarget =
  | { readonly channel: { id: number } | { name: string }; readonly topic: string }
  | { readonly dm: ReadonlyArray<number | string> };

/** A message as its sender asks for it; `content` already normalised. */
export interface MessageRequest extends Pick<SendInput, 'content' | 'readBySender' | 'client' | 'idempotencyKey' | 'local'> {
  readonly to: MessageTarget;
}

export function renderAs(realm: RealmHandle, sender: UserRecord, data: RenderData, content: string): RenderResult {
  return renderMarkdown(content, realmMarkdownContext(realm.state, data, sender));
}

/** A channel message's topic as stored ("(no topic)" and the empty topic's display name are ''). */
export const topicOf = (realm: RealmHandle, raw: string): string => topicFromParam(raw, realm.state.realm.settings.empty_topic_display_name);

/** Checks the request against the sender's rights now; the owner to ask and what to ask it. */
export async function prepareSend(realm: RealmHandle, sender: UserRecord, req: MessageRequest): Promise<{ key: ConversationKey; input: SendInput }> {
  const state = realm.state;
  const db = realm.services.db;
  const data = renderData(state);
  const rendered = renderAs(realm, sender, data, req.content);
  const common = {
    senderId: sender.id,
    content: req.content,
    rendered: {
      html: rendered.html,
      hasLink: rendered.hasLink,
      hasImage: rendered.hasImage,
      hasAttachment: rendered.hasAttachment,
      uploadPathIds: rendered.uploadPathIds,
    },
    isMeMessage: isMeMessage(req.content, rendered.html),
    streamWildcard: rendered.streamWildcard,
    topicWildcard: rendered.topicWildcard,
    readBySender: req.readBySender,
    client: req.client,
    idempotencyKey: req.idempotencyKey,
    local: req.local,
    linkifiers: data.linkifiers,
  };
  const to = req.to;
  if ('channel' in to) {
    const channel = resolveChannel(state, sender, to.channel);
    const topic = topicOf(realm, to.topic);
    checkCanSendToChannel(state, sender, channel);
    checkTopicForChannel(state, channel, topic);
    await checkTopicCreation(db, state, sender, channel, topic);
    const mentioned = await checkMentions(db, state, sender, rendered, { channel, topic });
    return {
      key: { kind: 'channel', channelId: channel.id },
      input: { ...common, channel: { id: channel.id, topic, isPublic: !channel.invite_only }, mentionedUserIds: mentioned },
    };
  }
  const users = resolveDmRecipients(state, sender, to.dm);
  const dmKey = dmKeyFor(users);
  await checkDmPermission(db, state, sender, users, dmKey);
  const mentioned = await checkMentions(db, state, sender, rendered, null);
  return {
    key: { kind: 'dm', dmKey },
    input: { ...common, dm: { key: dmKey, userIds: users.map((u) => u.id) }, mentionedUserIds: mentioned, topicWildcard: false },
  };
}

/** Checks, then sends; the new message's id. */
export async function submitMessage(realm: RealmHandle, sender: UserRecord, req: MessageRequest): Promise<number> {
  const { key, input } = await prepareSend(realm, sender, req);
  return (await realm.conversations.ask(key, 'send', input)).id;
}
