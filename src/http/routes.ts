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
  removeView,
  setOwnStatus,
  setUserStatus,
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
  updateRealm,
  updateRealmDomain,
  updateUserSettingsDefaults,
} from './endpoints/realm.js';
import {
  addLinkifier,
  addRealmEmoji,
  deactivateRealmEmoji,
  getLinkifiers,
  getRealmEmoji,
  removeLinkifier,
  reorderLinkifiers,
  serveRealmEmoji,
  updateLinkifier,
} from './endpoints/realm-content.js';
import { getHealth, getServerSettings } from './endpoints/server.js';
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
import type { RouteTable } from './router.js';

export const apiRoutes: RouteTable = {
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
  '/realm/domains': { GET: getRealmDomains, POST: addRealmDomain },
  '/realm/domains/{domain}': { PATCH: updateRealmDomain, DELETE: removeRealmDomain },
  '/realm/emoji': { GET: getRealmEmoji },
  '/realm/emoji/{emoji_name}': { POST: addRealmEmoji, DELETE: deactivateRealmEmoji },
  '/realm/filters': { POST: addLinkifier },
  '/realm/filters/{filter_id}': { PATCH: updateLinkifier, DELETE: removeLinkifier },
  '/realm/linkifiers': { GET: getLinkifiers, PATCH: reorderLinkifiers },
  '/realm/user_settings_defaults': { PATCH: updateUserSettingsDefaults },
  '/realm/profile_fields': { GET: getProfileFields, POST: createProfileField, PATCH: reorderProfileFields },
  '/realm/profile_fields/{field_id}': { PATCH: updateProfileField, DELETE: deleteProfileField },
  '/register': { POST: register },
  '/saved_snippets': { GET: getSnippets, POST: createSnippet },
  '/saved_snippets/{saved_snippet_id}': { PATCH: editSnippet, DELETE: deleteSnippet },
  '/server_settings': { GET: getServerSettings },
  '/settings': { PATCH: updateSettings },
  '/users': { GET: getUsers, POST: createUser },
  '/users/me': { GET: getOwnUser, DELETE: deactivateOwnUser },
  '/users/me/alert_words': { GET: getAlertWords, POST: addAlertWords, DELETE: removeAlertWords },
  '/users/me/avatar': { POST: setOwnAvatar, DELETE: deleteOwnAvatar },
  '/users/me/profile_data': { PATCH: updateOwnProfileData, DELETE: removeOwnProfileData },
  '/users/me/status': { POST: setOwnStatus },
  // {user_id} is an id or an email address (GET/PATCH /users/{email}, endpoint 2).
  '/users/{user_id}': { GET: getUser, PATCH: updateUser, DELETE: deactivateUser },
  '/users/{user_id}/reactivate': { POST: reactivateUser },
  '/users/{user_id}/status': { GET: getUserStatus, POST: setUserStatus },
};

export const siteRoutes: RouteTable = {
  '/avatar/{user_id}': { GET: redirectToAvatar },
  '/avatar/{user_id}/medium': { GET: redirectToMediumAvatar },
  '/health': { GET: getHealth },
  '/user_avatars/{realm_id}/{file_name}': { GET: serveUploadedAvatar },
  '/user_avatars/{realm_id}/emoji/images/{file_name}': { GET: serveRealmEmoji },
};
