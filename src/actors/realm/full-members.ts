// role:fullmembers over time: a member-role account joins it once it is `waiting_period_threshold`
// days old. Computed when an account is created or its role changes (users.ts); here, the rest:
// when the threshold changes (in PATCH /realm's transaction), and when accounts come of age, by
// a timer of the organization's armed for the next account to cross the threshold.
import { Alarm } from '../alarm.js';
import type { Emit } from '../realm-events.js';
import { userGroupEvent } from '../../domain/events/user-group.js';
import { Role } from '../../domain/roles.js';
import { isFullMember, SystemGroup } from '../../domain/system-groups.js';
import { addMembers, removeMembers } from '../../store/groups.js';
import type { CommonQueryMethods } from 'slonik';
import type { RealmContext, RealmHandle } from './actor.js';
import type { RealmState } from './state.js';

const DAY_MS = 86_400_000;
/** After a failed check, the next try. */
const RETRY_MS = 60_000;

export interface FullMembersChange {
  readonly added: readonly number[];
  readonly removed: readonly number[];
}

/** Who joins and who leaves role:fullmembers under this threshold at this moment. */
export function fullMembersChange(state: RealmState, thresholdDays: number, nowMs: number): FullMembersChange {
  const group = state.groups.get(state.systemGroupId(SystemGroup.fullMembers))!;
  const added: number[] = [];
  const removed: number[] = [];
  for (const u of state.users.values()) {
    const should = u.role === Role.member && isFullMember(u.date_joined, thresholdDays, nowMs);
    if (should && !group.members.has(u.id)) added.push(u.id);
    else if (!should && group.members.has(u.id) && u.role === Role.member) removed.push(u.id);
  }
  return { added: added.sort((a, b) => a - b), removed: removed.sort((a, b) => a - b) };
}

/** Stores the change and emits it (active accounts only: deactivated ones' memberships are hidden). */
export async function writeFullMembersChange(tx: CommonQueryMethods, emit: Emit, state: RealmState, change: FullMembersChange): Promise<void> {
  const groupId = state.systemGroupId(SystemGroup.fullMembers);
  const visible = (ids: readonly number[]) => ids.filter((id) => state.user(id)?.is_active);
  if (change.added.length > 0) {
    await addMembers(tx, groupId, change.added);
    const ids = visible(change.added);
    if (ids.length > 0) emit(userGroupEvent.build({ op: 'add_members', group_id: groupId, user_ids: ids }, { userIds: null }));
  }
  if (change.removed.length > 0) {
    await removeMembers(tx, groupId, change.removed);
    const ids = visible(change.removed);
    if (ids.length > 0) emit(userGroupEvent.build({ op: 'remove_members', group_id: groupId, user_ids: ids }, { userIds: null }));
  }
}

/** The cached group after the change committed. */
export function applyFullMembersChange(state: RealmState, change: FullMembersChange): void {
  if (change.added.length === 0 && change.removed.length === 0) return;
  const g = state.groups.get(state.systemGroupId(SystemGroup.fullMembers))!;
  const members = new Set(g.members);
  for (const id of change.added) members.add(id);
  for (const id of change.removed) members.delete(id);
  state.putGroup({ ...g, members });
}

/** The realm command the timer sends: role:fullmembers as of now. */
async function syncFullMembers(ctx: RealmContext, _input: null): Promise<FullMembersChange> {
  const { state } = ctx;
  const change = fullMembersChange(state, state.realm.settings.waiting_period_threshold, ctx.services.clock.now());
  if (change.added.length === 0 && change.removed.length === 0) return change;
  await ctx.write(
    (tx, emit) => writeFullMembersChange(tx, emit, state, change),
    () => applyFullMembersChange(state, change),
  );
  return change;
}

export const fullMemberCommands = {
  'groups.syncFullMembers': syncFullMembers,
};

/** The organization's timer for the next account to come of age. */
export class FullMemberClock {
  private readonly alarm: Alarm;

  constructor(private readonly realm: RealmHandle) {
    this.alarm = new Alarm(
      () => realm.services.clock.now(),
      () =>
        void this.sync().catch((err: unknown) => {
          realm.services.log.warn({ err, realm: realm.id }, 'updating role:fullmembers failed; trying again in a minute');
          this.alarm.armBy(realm.services.clock.now() + RETRY_MS);
        }),
    );
  }

  /** When the timer fires next (epoch ms); null when no account is waiting. */
  get nextCheck(): number | null {
    return this.alarm.next;
  }

  /** Arms for the next crossing among the accounts now (after a load, a sync or a threshold change). */
  rearm(): void {
    const state = this.realm.state;
    const days = state.realm.settings.waiting_period_threshold;
    const now = this.realm.services.clock.now();
    let next = Infinity;
    if (days > 0) {
      for (const u of state.users.values()) {
        const at = u.date_joined + days * DAY_MS;
        if (u.role === Role.member && at > now && at < next) next = at;
      }
    }
    this.alarm.disarm();
    if (next < Infinity) this.alarm.armBy(next);
  }

  /** A member-role account that joined at `dateJoinedMs` (created now, or given the member role). */
  noteJoined(dateJoinedMs: number): void {
    const days = this.realm.state.realm.settings.waiting_period_threshold;
    const at = dateJoinedMs + days * DAY_MS;
    if (days > 0 && at > this.realm.services.clock.now()) this.alarm.armBy(at);
  }

  /** Brings role:fullmembers up to date now and arms for the next crossing. */
  async sync(): Promise<FullMembersChange> {
    const change = await this.realm.ask('groups.syncFullMembers', null);
    this.rearm();
    return change;
  }

  stop(): void {
    this.alarm.disarm();
  }
}
