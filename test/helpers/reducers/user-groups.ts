// Reducer for `user_group` events, applied to `realm_user_groups` as a client keeps it.
import type { Reducer } from './types.js';

type Group = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const sorted = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);

const userGroup: Reducer = (state, e) => {
  const groups: Group[] | undefined = state.realm_user_groups;
  if (!groups) return;
  const g = groups.find((x) => x.id === (e.group_id ?? e.group?.id));
  switch (e.op) {
    case 'add':
      groups.push(e.group);
      return;
    case 'remove':
      if (g) groups.splice(groups.indexOf(g), 1);
      return;
    case 'update':
      if (g) Object.assign(g, e.data);
      return;
    case 'add_members':
      if (g) g.members = sorted([...g.members, ...e.user_ids]);
      return;
    case 'remove_members':
      if (g) g.members = g.members.filter((id: number) => !e.user_ids.includes(id));
      return;
    case 'add_subgroups':
      if (g) g.direct_subgroup_ids = sorted([...g.direct_subgroup_ids, ...e.direct_subgroup_ids]);
      return;
    case 'remove_subgroups':
      if (g) g.direct_subgroup_ids = g.direct_subgroup_ids.filter((id: number) => !e.direct_subgroup_ids.includes(id));
      return;
    default:
      throw new Error(`unknown user_group op ${e.op}`);
  }
};

export const userGroupReducers: Record<string, Reducer> = { user_group: userGroup };
