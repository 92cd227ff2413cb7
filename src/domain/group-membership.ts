// Membership through nested groups, over any lookup of groups (pure; used with realm state).

export interface GroupLike {
  readonly members: ReadonlySet<number>;
  readonly subgroups: ReadonlySet<number>;
  readonly deactivated: boolean;
}

/** Is the user a member of the group directly or through any chain of subgroups? */
export function isMemberRecursive(
  groups: ReadonlyMap<number, GroupLike>,
  groupId: number,
  userId: number,
): boolean {
  const seen = new Set<number>();
  const stack = [groupId];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const g = groups.get(id);
    if (!g) continue;
    if (g.members.has(userId)) return true;
    for (const s of g.subgroups) stack.push(s);
  }
  return false;
}

/** Every user in the group, directly or through subgroups. */
export function allMembers(groups: ReadonlyMap<number, GroupLike>, groupId: number): Set<number> {
  const out = new Set<number>();
  const seen = new Set<number>();
  const stack = [groupId];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const g = groups.get(id);
    if (!g) continue;
    for (const m of g.members) out.add(m);
    for (const s of g.subgroups) stack.push(s);
  }
  return out;
}
