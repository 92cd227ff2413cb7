// The one route table. `api` paths are relative to /api/v1; `site` paths are served at the root.
// Reading this file shows the whole HTTP surface of Parley.
import { fetchApiKey } from './endpoints/auth.js';
import { createSocketTicket, deleteQueue, getEvents, register } from './endpoints/events.js';
import { getHealth, getServerSettings } from './endpoints/server.js';
import { getOwnUser } from './endpoints/users.js';
import type { RouteTable } from './router.js';
import {
  addDefaultStream,
  archiveStream,
  getStream,
  getStreamId,
  getStreams,
  getSubscribers,
  removeDefaultStream,
  updateStream,
} from './endpoints/channels.js';
import { getMessage, getMessages, renderMessage, sendMessage } from './endpoints/messages.js';
import { deleteMessage, getMessageHistory, updateMessage } from './endpoints/message-edit.js';
import { getTopics, muteTopic, updateUserTopic } from './endpoints/topics.js';
import { addReaction, removeReaction } from './endpoints/reactions.js';
import { markAllAsRead, markStreamAsRead, markTopicAsRead, updateFlags, updateFlagsForNarrow } from './endpoints/flags.js';
import { setEditTyping, setTyping } from './endpoints/typing.js';
import { deleteAttachment, getFile, getFileUrl, getTemporaryFile, listAttachments, uploadFile } from './endpoints/uploads.js';
import {
  getSubscriptions,
  subscribe,
  unsubscribe,
  updateSubscription,
  updateSubscriptionProperties,
} from './endpoints/subscriptions.js';

export const apiRoutes: RouteTable = {
  '/events': { GET: getEvents, DELETE: deleteQueue },
  '/events/socket_ticket': { POST: createSocketTicket },
  '/fetch_api_key': { POST: fetchApiKey },
  '/register': { POST: register },
  '/server_settings': { GET: getServerSettings },
  '/users/me': { GET: getOwnUser },
  '/default_streams': { POST: addDefaultStream, DELETE: removeDefaultStream },
  '/get_stream_id': { GET: getStreamId },
  '/messages': { GET: getMessages, POST: sendMessage },
  '/messages/render': { POST: renderMessage },
  '/messages/{message_id}': { GET: getMessage, PATCH: updateMessage, DELETE: deleteMessage },
  '/messages/{message_id}/history': { GET: getMessageHistory },
  '/messages/{message_id}/reactions': { POST: addReaction, DELETE: removeReaction },
  '/messages/{message_id}/typing': { POST: setEditTyping },
  '/messages/flags': { POST: updateFlags },
  '/messages/flags/narrow': { POST: updateFlagsForNarrow },
  '/mark_all_as_read': { POST: markAllAsRead },
  '/mark_stream_as_read': { POST: markStreamAsRead },
  '/mark_topic_as_read': { POST: markTopicAsRead },
  '/typing': { POST: setTyping },
  '/attachments': { GET: listAttachments },
  '/attachments/{attachment_id}': { DELETE: deleteAttachment },
  '/user_uploads': { POST: uploadFile },
  '/user_uploads/{realm_id}/{bucket}/{token}/{filename}': { GET: getFileUrl },
  '/streams': { GET: getStreams },
  '/streams/{stream_id}': { GET: getStream, PATCH: updateStream, DELETE: archiveStream },
  '/streams/{stream_id}/members': { GET: getSubscribers },
  '/users/me/subscriptions': { GET: getSubscriptions, POST: subscribe, DELETE: unsubscribe },
  '/users/me/subscriptions/properties': { POST: updateSubscriptionProperties },
  '/users/me/subscriptions/{stream_id}': { PATCH: updateSubscription },
  '/users/me/subscriptions/muted_topics': { PATCH: muteTopic },
  '/users/me/{stream_id}/topics': { GET: getTopics },
  '/user_topics': { POST: updateUserTopic },
};

export const siteRoutes: RouteTable = {
  '/health': { GET: getHealth },
  '/user_uploads/{realm_id}/{bucket}/{token}/{filename}': { GET: getFile },
  '/user_uploads/temporary/{token}/{filename}': { GET: getTemporaryFile },
};
