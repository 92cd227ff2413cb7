// API emails, real addresses and who may see them (email_address_visibility).
import { isAdmin, isGuest, isModerator } from './roles.js';
import { EmailVisibility } from './user-settings.js';

/** The host part of dummy addresses: the organization's host name without its port. */
export function dummyEmailDomain(realmHost: string): string {
  return realmHost.replace(/:\d+$/, '').toLowerCase();
}

/** `user{id}@{realm host}`, the API email of users whose real address is hidden. */
export function dummyEmail(userId: number, realmHost: string): string {
  return `user${userId}@${dummyEmailDomain(realmHost)}`;
}

export function parseDummyEmail(email: string, realmHost: string): number | null {
  const m = /^user(\d+)@(.+)$/i.exec(email);
  if (!m || m[2]!.toLowerCase() !== dummyEmailDomain(realmHost)) return null;
  return Number(m[1]);
}

/** The API email of an account under its visibility setting. */
export function apiEmailFor(userId: number, deliveryEmail: string, visibility: number, realmHost: string): string {
  return visibility === EmailVisibility.everyone ? deliveryEmail : dummyEmail(userId, realmHost);
}

/** May `viewerRole` (or the user themselves) see a target's real address? */
export function canSeeDeliveryEmail(
  viewer: { id: number; role: number } | null,
  target: { id: number; visibility: number },
): boolean {
  if (viewer && viewer.id === target.id) return true;
  if (!viewer) return false;
  switch (target.visibility) {
    case EmailVisibility.everyone:
      return true;
    case EmailVisibility.members:
      return !isGuest(viewer.role);
    case EmailVisibility.moderators:
      return isModerator(viewer.role);
    case EmailVisibility.admins:
      return isAdmin(viewer.role);
    default:
      return false;
  }
}

const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:"]+$/;
export const isValidEmail = (s: string): boolean => s.length <= 254 && EMAIL.test(s);
