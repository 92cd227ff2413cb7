// The one route table. `api` paths are relative to /api/v1; `site` paths are served at the root.
// Reading this file shows the whole HTTP surface of Parley.
import { fetchApiKey } from './endpoints/auth.js';
import { createChannelFolder, getChannelFolders, reorderChannelFolders, updateChannelFolder } from './endpoints/channel-folders.js';
import { createSocketTicket, deleteQueue, getEvents, register } from './endpoints/events.js';
import { createMultiuseInvite, getInvites, revokeMultiuseInvite } from './endpoints/invites.js';
import { getRealmPresence, getUserPresence, updatePresence } from './endpoints/presence.js';
import { addApnsToken, addFcmToken, registerPushDevice, removeApnsToken, removeFcmToken } from './endpoints/push.js';
import { getHealth, getServerSettings } from './endpoints/server.js';
import { showSignup, submitSignup } from './endpoints/signup.js';
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
import { getOwnUser } from './endpoints/users.js';
import type { RouteTable } from './router.js';

export const apiRoutes: RouteTable = {
  '/channel_folders': { GET: getChannelFolders, PATCH: reorderChannelFolders },
  '/channel_folders/create': { POST: createChannelFolder },
  '/channel_folders/{channel_folder_id}': { PATCH: updateChannelFolder },
  '/events': { GET: getEvents, DELETE: deleteQueue },
  '/events/socket_ticket': { POST: createSocketTicket },
  '/fetch_api_key': { POST: fetchApiKey },
  '/invites': { GET: getInvites },
  '/invites/multiuse': { POST: createMultiuseInvite },
  '/invites/multiuse/{invite_id}': { DELETE: revokeMultiuseInvite },
  '/register': { POST: register },
  '/server_settings': { GET: getServerSettings },
  '/users/me': { GET: getOwnUser },
  '/users/me/presence': { POST: updatePresence },
  '/users/me/apns_device_token': { POST: addApnsToken, DELETE: removeApnsToken },
  '/users/me/android_gcm_reg_id': { POST: addFcmToken, DELETE: removeFcmToken },
  '/mobile_push/register': { POST: registerPushDevice },
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
  '/health': { GET: getHealth },
  '/join/{key}/': { GET: showSignup, POST: submitSignup },
};
