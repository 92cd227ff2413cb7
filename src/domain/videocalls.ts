// Video calls through a self-hosted meeting server (VIDEOCALL_URL): a new call is a new room with
// an unguessable name under the server's base URL. No account linking is needed, so a user
// "has the token" (has_videocall_token) whenever a server is configured and they may create calls.
import { randomAlphanumeric } from './secrets.js';
import { isGuest } from './roles.js';

const ROOM_NAME_LENGTH = 20;

/** Guests may not start calls (they could not share the room with people they cannot see). */
export function canCreateVideoCalls(serverUrl: string | undefined, role: number): boolean {
  return serverUrl !== undefined && !isGuest(role);
}

export function newMeetingUrl(serverUrl: string): string {
  return `${serverUrl}/${randomAlphanumeric(ROOM_NAME_LENGTH).toLowerCase()}`;
}
