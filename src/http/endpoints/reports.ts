// Message reports: POST /messages/{message_id}/report. Notification Bot posts the report in the
// organization's moderation request channel: who reported which message, why, and the message
// quoted, in a topic per reported user. Reporting is off while no such channel is set.
import { z } from 'zod';
import { accessibleMessage } from '../../actors/conversations/message-view.js';
import { messageLink, quoteBlock, sendNotice, silentMention } from '../../actors/conversations/notices.js';
import { errors } from '../../domain/errors.js';
import { truncateTopic } from '../../domain/topic-names.js';
import { userEndpoint } from '../endpoint.js';
import { p } from '../params.js';

export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;

const REPORT_TYPES = ['spam', 'harassment', 'inappropriate', 'norms', 'other'] as const;
const REASONS: Readonly<Record<(typeof REPORT_TYPES)[number], string>> = {
  spam: 'Spam',
  harassment: 'Harassment',
  inappropriate: 'Inappropriate content',
  norms: 'Violates community norms',
  other: 'Other',
};

const reportParams = z.object({
  message_id: p.int(),
  report_type: p.enum(REPORT_TYPES),
  description: p.string({ max: MAX_REPORT_DESCRIPTION_LENGTH }).optional(),
});

export const reportMessage = userEndpoint(reportParams, async (ctx, q) => {
  const { realm, user } = ctx;
  const state = realm.state;
  const channelId = state.realm.settings.moderation_request_channel_id;
  const channel = channelId === -1 ? undefined : state.channels.get(channelId);
  if (!channel || channel.is_archived) throw errors.badRequest('Moderation request channel must be specified to enable message reporting.');
  const { row: message } = await accessibleMessage(realm, user, q.message_id);
  if (message.sender_id === user.id) throw errors.badRequest('You cannot report your own messages.');
  const description = q.description?.trim() ?? '';
  if (q.report_type === 'other' && description === '') throw errors.badRequest('A description is required for this kind of report.');
  const sender = state.user(message.sender_id)!;
  const lines = [
    `${silentMention(user)} reported [a message](${messageLink(state, message)}) sent by ${silentMention(sender)}.`,
    `**Reason**: ${REASONS[q.report_type]}`,
  ];
  if (description !== '') lines.push(`**Their explanation**:\n${quoteBlock(description)}`);
  lines.push(`**The message**:\n${quoteBlock(message.content)}`);
  await sendNotice(realm, channel.id, truncateTopic(`Reports of ${sender.full_name}`), lines.join('\n\n'));
  return {};
});
