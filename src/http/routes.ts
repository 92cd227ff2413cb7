// The one route table. `api` paths are relative to /api/v1; `site` paths are served at the root.
// Reading this file shows the whole HTTP surface of Parley.
import { fetchApiKey } from './endpoints/auth.js';
import { createSocketTicket, deleteQueue, getEvents, register } from './endpoints/events.js';
import { getHealth, getServerSettings } from './endpoints/server.js';
import { getOwnUser } from './endpoints/users.js';
import type { RouteTable } from './router.js';

export const apiRoutes: RouteTable = {
  '/events': { GET: getEvents, DELETE: deleteQueue },
  '/events/socket_ticket': { POST: createSocketTicket },
  '/fetch_api_key': { POST: fetchApiKey },
  '/register': { POST: register },
  '/server_settings': { GET: getServerSettings },
  '/users/me': { GET: getOwnUser },
};

export const siteRoutes: RouteTable = {
  '/health': { GET: getHealth },
};
