// The one route table. `api` paths are relative to /api/v1; `site` paths are served at the root.
// Reading this file shows the whole HTTP surface of Parley.
import { fetchApiKey } from './endpoints/auth.js';
import { deleteOwnAvatar, redirectToAvatar, redirectToMediumAvatar, serveUploadedAvatar, setOwnAvatar } from './endpoints/avatars.js';
import { createVideoCall } from './endpoints/calls.js';
import { createBot, deactivateBot, getBotApiKey, regenerateBotApiKey, updateBot } from './endpoints/bots.js';
import { createSocketTicket, deleteQueue, getEvents, register } from './endpoints/events.js';
import {
  addAlertWords,
  addView,
  createSnippet,
  deleteSnippet,
  editSnippet,
  editView,
  getAlertWords,
  getSnippets,
  getUserStatus,
  getViews,
  removeAlertWords,
  muteUser,
  removeView,
  setOwnStatus,
  setUserStatus,
  unmuteUser,
} from './endpoints/personal.js';
import {
  createProfileField,
  deleteProfileField,
  getProfileFields,
  removeOwnProfileData,
  reorderProfileFields,
  updateOwnProfileData,
  updateProfileField,
} from './endpoints/profile-fields.js';
import {
  addRealmDomain,
  getRealmDomains,
  removeRealmDomain,
  testWelcomeBotMessage,
  updateRealm,
  updateRealmDomain,
  updateUserSettingsDefaults,
} from './endpoints/realm.js';
import {
  addLinkifier,
  addPlayground,
  addRealmEmoji,
  deactivateRealmEmoji,
  getLinkifiers,
  getRealmEmoji,
  removeLinkifier,
  removePlayground,
  reorderLinkifiers,
  serveRealmEmoji,
  updateLinkifier,
} from './endpoints/realm-content.js';
import { getHealth, getMetrics, getServerSettings } from './endpoints/server.js';
import { updateSettings } from './endpoints/settings.js';
import {
  createUser,
  deactivateOwnUser,
  deactivateUser,
  getOwnUser,
  getUser,
  getUsers,
  reactivateUser,
  updateUser,
} from './endpoints/users.js';
import { createChannelFolder, getChannelFolders, reorderChannelFolders, updateChannelFolder } from './endpoints/channel-folders.js';
import { createMultiuseInvite, getInvites, revokeMultiuseInvite } from './endpoints/invites.js';
import { getRealmPresence, getUserPresence, updatePresence } from './endpoints/presence.js';
import {
  addApnsToken,
  addFcmToken,
  registerClientDevice,
  registerPushDevice,
  removeApnsToken,
  removeFcmToken,
  sendE2eeTestNotification,
  sendLegacyTestNotification,
} from './endpoints/push.js';
import { showSignup, submitSignup } from './endpoints/signup.js';
import { logout, showLogin, submitLogin } from './endpoints/login.js';
import {
  createUserGroup,
  deactivateUserGroup,
  getUserGroupMembers,
  getUserGroupMembership,
  getUserGroups,
  getUserGroupSubgroups,
  updateUserGroup,
  updateUserGroupMembers,
  updateUserGroupSubgroups,
} from './endpoints/user-groups.js';
import type { RouteTable } from './router.js';
import { z } from 'zod';
import { RawResponse, serverEndpoint } from './endpoint.js';
import { buildOpenApi } from './openapi.js';
import {
  addDefaultStream,
  archiveStream,
  deleteTopic,
  getStream,
  getStreamId,
  getStreams,
  getSubscribers,
  removeDefaultStream,
  updateStream,
} from './endpoints/channels.js';
import { getMessage, getMessages, getReadReceipts, messagesMatchNarrow, renderMessage, sendMessage } from './endpoints/messages.js';
import { deleteMessage, getMessageHistory, updateMessage } from './endpoints/message-edit.js';
import { getTopics, muteTopic, updateUserTopic } from './endpoints/topics.js';
import { addReaction, removeReaction } from './endpoints/reactions.js';
import { markAllAsRead, markStreamAsRead, markTopicAsRead, updateFlags, updateFlagsForNarrow } from './endpoints/flags.js';
import { setEditTyping, setTyping } from './endpoints/typing.js';
import { createDrafts, deleteDraft, editDraft, getDrafts } from './endpoints/drafts.js';
import { reportMessage } from './endpoints/reports.js';
import {
  createReminder,
  createScheduledMessage,
  deleteReminder,
  deleteScheduledMessage,
  editScheduledMessage,
  getReminders,
  getScheduledMessages,
} from './endpoints/scheduled.js';
import { deleteAttachment, getFile, getFileUrl, getTemporaryFile, listAttachments, uploadFile } from './endpoints/uploads.js';
import {
  createChannel,
  getSubscriptions,
  getSubscriptionStatus,
  getUserChannels,
  subscribe,
  unsubscribe,
  updateSubscription,
  updateSubscriptionProperties,
  updateSubscriptions,
} from './endpoints/subscriptions.js';

let openApiDocument: string | null = null;
/** GET /api/v1/openapi.json: this table as an OpenAPI 3.1 document (built once, on first use). */
const getOpenApi = serverEndpoint(z.object({}), async () => {
  openApiDocument ??= JSON.stringify(buildOpenApi({ api: apiRoutes, site: siteRoutes }));
  return new RawResponse(200, { 'Content-Type': 'application/json' }, openApiDocument);
});

export const apiRoutes: RouteTable = {
  '/openapi.json': { GET: getOpenApi },
  '/bots': { POST: createBot },
  '/bots/{bot_id}': { PATCH: updateBot, DELETE: deactivateBot },
  '/bots/{bot_id}/api_key': { GET: getBotApiKey },
  '/bots/{bot_id}/api_key/regenerate': { POST: regenerateBotApiKey },
  '/calls/videocall/create': { POST: createVideoCall },
  '/events': { GET: getEvents, DELETE: deleteQueue },
  '/events/socket_ticket': { POST: createSocketTicket },
  '/fetch_api_key': { POST: fetchApiKey },
  '/navigation_views': { GET: getViews, POST: addView },
  '/navigation_views/{fragment}': { PATCH: editView, DELETE: removeView },
  '/realm': { PATCH: updateRealm },
  '/realm/test_welcome_bot_custom_message': { POST: testWelcomeBotMessage },
  '/realm/domains': { GET: getRealmDomains, POST: addRealmDomain },
  '/realm/domains/{domain}': { PATCH: updateRealmDomain, DELETE: removeRealmDomain },
  '/realm/emoji': { GET: getRealmEmoji },
  '/realm/emoji/{emoji_name}': { POST: addRealmEmoji, DELETE: deactivateRealmEmoji },
  '/realm/filters': { POST: addLinkifier },
  '/realm/playgrounds': { POST: addPlayground },
  '/realm/playgrounds/{playground_id}': { DELETE: removePlayground },
  '/realm/filters/{filter_id}': { PATCH: updateLinkifier, DELETE: removeLinkifier },
  '/realm/linkifiers': { GET: getLinkifiers, PATCH: reorderLinkifiers },
  '/realm/user_settings_defaults': { PATCH: updateUserSettingsDefaults },
  '/realm/profile_fields': { GET: getProfileFields, POST: createProfileField, PATCH: reorderProfileFields },
  '/realm/profile_fields/{field_id}': { PATCH: updateProfileField, DELETE: deleteProfileField },
  '/channel_folders': { GET: getChannelFolders, PATCH: reorderChannelFolders },
  '/channel_folders/create': { POST: createChannelFolder },
  '/channel_folders/{channel_folder_id}': { PATCH: updateChannelFolder },
  '/invites': { GET: getInvites },
  '/invites/multiuse': { POST: createMultiuseInvite },
  '/invites/multiuse/{invite_id}': { DELETE: revokeMultiuseInvite },
  '/register': { POST: register },
  '/drafts': { GET: getDrafts, POST: createDrafts },
  '/drafts/{draft_id}': { PATCH: editDraft, DELETE: deleteDraft },
  '/scheduled_messages': { GET: getScheduledMessages, POST: createScheduledMessage },
  '/scheduled_messages/{scheduled_message_id}': { PATCH: editScheduledMessage, DELETE: deleteScheduledMessage },
  '/reminders': { GET: getReminders, POST: createReminder },
  '/reminders/{reminder_id}': { DELETE: deleteReminder },
  '/saved_snippets': { GET: getSnippets, POST: createSnippet },
  '/saved_snippets/{saved_snippet_id}': { PATCH: editSnippet, DELETE: deleteSnippet },
  '/server_settings': { GET: getServerSettings },
  '/default_streams': { POST: addDefaultStream, DELETE: removeDefaultStream },
  '/get_stream_id': { GET: getStreamId },
  '/messages': { GET: getMessages, POST: sendMessage },
  '/messages/matches_narrow': { GET: messagesMatchNarrow },
  '/messages/render': { POST: renderMessage },
  '/messages/{message_id}': { GET: getMessage, PATCH: updateMessage, DELETE: deleteMessage },
  '/messages/{message_id}/history': { GET: getMessageHistory },
  '/messages/{message_id}/read_receipts': { GET: getReadReceipts },
  '/messages/{message_id}/report': { POST: reportMessage },
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
  '/channels/create': { POST: createChannel },
  '/streams/{stream_id}': { GET: getStream, PATCH: updateStream, DELETE: archiveStream },
  '/streams/{stream_id}/members': { GET: getSubscribers },
  '/streams/{stream_id}/delete_topic': { POST: deleteTopic },
  '/users/me/subscriptions': { GET: getSubscriptions, POST: subscribe, PATCH: updateSubscriptions, DELETE: unsubscribe },
  '/users/me/subscriptions/properties': { POST: updateSubscriptionProperties },
  '/users/me/subscriptions/{stream_id}': { PATCH: updateSubscription },
  '/users/me/subscriptions/muted_topics': { PATCH: muteTopic },
  '/users/me/{stream_id}/topics': { GET: getTopics },
  '/user_topics': { POST: updateUserTopic },
  '/settings': { PATCH: updateSettings },
  '/users': { GET: getUsers, POST: createUser },
  '/users/me': { GET: getOwnUser, DELETE: deactivateOwnUser },
  '/users/me/alert_words': { GET: getAlertWords, POST: addAlertWords, DELETE: removeAlertWords },
  '/users/me/muted_users/{muted_user_id}': { POST: muteUser, DELETE: unmuteUser },
  '/users/me/avatar': { POST: setOwnAvatar, DELETE: deleteOwnAvatar },
  '/users/me/profile_data': { PATCH: updateOwnProfileData, DELETE: removeOwnProfileData },
  '/users/me/status': { POST: setOwnStatus },
  // {user_id} is an id or an email address (GET/PATCH /users/{email}, endpoint 2).
  '/users/{user_id}': { GET: getUser, PATCH: updateUser, DELETE: deactivateUser },
  '/users/{user_id}/reactivate': { POST: reactivateUser },
  '/users/{user_id}/subscriptions/{stream_id}': { GET: getSubscriptionStatus },
  '/users/{user_id}/channels': { GET: getUserChannels },
  '/users/{user_id}/status': { GET: getUserStatus, POST: setUserStatus },
  '/users/me/presence': { POST: updatePresence },
  '/users/me/apns_device_token': { POST: addApnsToken, DELETE: removeApnsToken },
  '/users/me/android_gcm_reg_id': { POST: addFcmToken, DELETE: removeFcmToken },
  '/register_client_device': { POST: registerClientDevice },
  '/mobile_push/register': { POST: registerPushDevice },
  '/mobile_push/test_notification': { POST: sendLegacyTestNotification },
  '/mobile_push/e2ee/test_notification': { POST: sendE2eeTestNotification },
  '/users/{user_id_or_email}/presence': { GET: getUserPresence },
  '/realm/presence': { GET: getRealmPresence },
  '/user_groups': { GET: getUserGroups },
  '/user_groups/create': { POST: createUserGroup },
  '/user_groups/{user_group_id}': { PATCH: updateUserGroup },
  '/user_groups/{user_group_id}/deactivate': { POST: deactivateUserGroup },
  '/user_groups/{user_group_id}/members': { GET: getUserGroupMembers, POST: updateUserGroupMembers },
  '/user_groups/{user_group_id}/members/{user_id}': { GET: getUserGroupMembership },
  '/user_groups/{user_group_id}/subgroups': { GET: getUserGroupSubgroups, POST: updateUserGroupSubgroups },
};

export const siteRoutes: RouteTable = {
  '/avatar/{user_id}': { GET: redirectToAvatar },
  '/avatar/{user_id}/medium': { GET: redirectToMediumAvatar },
  '/health': { GET: getHealth },
  '/metrics': { GET: getMetrics },
  '/user_uploads/{realm_id}/{bucket}/{token}/{filename}': { GET: getFile },
  '/user_uploads/temporary/{token}/{filename}': { GET: getTemporaryFile },
  '/user_avatars/{realm_id}/{file_name}': { GET: serveUploadedAvatar },
  '/user_avatars/{realm_id}/emoji/images/{file_name}': { GET: serveRealmEmoji },
  '/join/{key}/': { GET: showSignup, POST: submitSignup },
  // Browser sessions; they authenticate only the routes of this table that take credentials.
  '/login': { GET: showLogin, POST: submitLogin },
  '/logout': { POST: logout },
};
