// Membership through nested groups, over any lookup of groups (pure; used with realm state).

export interface GroupLike {
  readonly members: ReadonlySet<number>;
  readonly subgroups: ReadonlySet<number>;
  readonly deactivated: boolean;
}

/**
 * Visit the group and every group nested in it once (cycles are tolerated); stop early when
 * `visit` returns true. Returns whether it stopped early.
 */
function walk(groups: ReadonlyMap<number, GroupLike>, groupId: number, visit: (g: GroupLike) => boolean): boolean {
  const seen = new Set<number>();
  const stack = [groupId];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const g = groups.get(id);
    if (!g) continue;
    if (visit(g)) return true;
    for (const s of g.subgroups) stack.push(s);
  }
  return false;
}

/** Is the user a member of the group directly or through any chain of subgroups? */
export function isMemberRecursive(groups: ReadonlyMap<number, GroupLike>, groupId: number, userId: number): boolean {
  return walk(groups, groupId, (g) => g.members.has(userId));
}

/** Every user in the group, directly or through subgroups. */
export function allMembers(groups: ReadonlyMap<number, GroupLike>, groupId: number): Set<number> {
  const out = new Set<number>();
  walk(groups, groupId, (g) => {
    for (const m of g.members) out.add(m);
    return false;
  });
  return out;
}
