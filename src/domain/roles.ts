// Role codes of the API (convention 7) and the questions asked of them.

export const Role = {
  owner: 100,
  administrator: 200,
  moderator: 300,
  member: 400,
  guest: 600,
} as const;
export type Role = (typeof Role)[keyof typeof Role];

export const ROLE_CODES: readonly Role[] = [100, 200, 300, 400, 600];

export const roleNames: Readonly<Record<string, Role>> = {
  owner: Role.owner,
  admin: Role.administrator,
  administrator: Role.administrator,
  moderator: Role.moderator,
  member: Role.member,
  guest: Role.guest,
};

export function isRole(n: number): n is Role {
  return (ROLE_CODES as readonly number[]).includes(n);
}

/** Lower codes carry more privilege; "at least" compares along that order. */
export const isAtLeast = (role: number, needed: Role): boolean => role <= needed;
export const isOwner = (role: number) => role === Role.owner;
export const isAdmin = (role: number) => role <= Role.administrator;
export const isModerator = (role: number) => role <= Role.moderator;
export const isGuest = (role: number) => role === Role.guest;

export function roleFlags(role: number) {
  return { is_owner: isOwner(role), is_admin: isAdmin(role), is_guest: isGuest(role) };
}
