// The system role groups every organization has, how they nest, and which of them a user is a
// direct member of. Nesting: owners ⊂ administrators ⊂ moderators ⊂ fullmembers ⊂ members ⊂
// everyone ⊂ internet; nobody is always empty.
import { Role } from './roles.js';

export const SystemGroup = {
  internet: 'role:internet',
  everyone: 'role:everyone',
  members: 'role:members',
  fullMembers: 'role:fullmembers',
  moderators: 'role:moderators',
  administrators: 'role:administrators',
  owners: 'role:owners',
  nobody: 'role:nobody',
} as const;
export type SystemGroupName = (typeof SystemGroup)[keyof typeof SystemGroup];

export const SYSTEM_GROUPS: ReadonlyArray<{ name: SystemGroupName; description: string; subgroup: SystemGroupName | null }> = [
  { name: SystemGroup.owners, description: 'Owners of this organization', subgroup: null },
  { name: SystemGroup.administrators, description: 'Administrators of this organization, including owners', subgroup: SystemGroup.owners },
  { name: SystemGroup.moderators, description: 'Moderators of this organization, including administrators', subgroup: SystemGroup.administrators },
  { name: SystemGroup.fullMembers, description: 'Members of this organization, not including new accounts and guests', subgroup: SystemGroup.moderators },
  { name: SystemGroup.members, description: 'Members of this organization, not including guests', subgroup: SystemGroup.fullMembers },
  { name: SystemGroup.everyone, description: 'Everyone in this organization, including guests', subgroup: SystemGroup.members },
  { name: SystemGroup.internet, description: 'Everyone on the Internet', subgroup: SystemGroup.everyone },
  { name: SystemGroup.nobody, description: 'Nobody', subgroup: null },
];

/** The system groups a user belongs to directly (the rest follows from nesting). */
export function directSystemGroups(role: number, isFullMember: boolean): SystemGroupName[] {
  switch (role) {
    case Role.owner:
      return [SystemGroup.owners];
    case Role.administrator:
      return [SystemGroup.administrators];
    case Role.moderator:
      return [SystemGroup.moderators];
    case Role.member:
      return isFullMember ? [SystemGroup.members, SystemGroup.fullMembers] : [SystemGroup.members];
    case Role.guest:
      return [SystemGroup.everyone];
    default:
      throw new Error(`Unknown role ${role}`);
  }
}

/** Whether a member-role account has waited long enough to count as a full member. */
export function isFullMember(dateJoinedMs: number, waitingPeriodDays: number, nowMs: number): boolean {
  return nowMs - dateJoinedMs >= waitingPeriodDays * 86_400_000;
}
