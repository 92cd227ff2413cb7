// Whom the users of an organization muted, in memory: a send marks its message read for every
// recipient who muted its sender, so it asks who did (mutedBy), and POST /register lists a
// user's mutes (of).

/** One mute as clients see it: the muted user and when (whole seconds). */
export interface Mute {
  readonly id: number;
  readonly timestamp: number;
}

const NOBODY: ReadonlySet<number> = new Set();

export class MutedUsers {
  /** By the user who muted: the muted users and when (ms), in the order they were muted. */
  private readonly byMuter = new Map<number, Map<number, number>>();
  /** By the muted user: who muted them. */
  private readonly byMuted = new Map<number, Set<number>>();

  /** Record a mute (`atMs`: when). */
  add(userId: number, mutedUserId: number, atMs: number): void {
    let mine = this.byMuter.get(userId);
    if (!mine) this.byMuter.set(userId, (mine = new Map()));
    mine.set(mutedUserId, atMs);
    let muters = this.byMuted.get(mutedUserId);
    if (!muters) this.byMuted.set(mutedUserId, (muters = new Set()));
    muters.add(userId);
  }

  remove(userId: number, mutedUserId: number): void {
    const mine = this.byMuter.get(userId);
    mine?.delete(mutedUserId);
    if (mine?.size === 0) this.byMuter.delete(userId);
    const muters = this.byMuted.get(mutedUserId);
    muters?.delete(userId);
    if (muters?.size === 0) this.byMuted.delete(mutedUserId);
  }

  has(userId: number, mutedUserId: number): boolean {
    return this.byMuter.get(userId)?.has(mutedUserId) ?? false;
  }

  /** The users who muted this one. */
  mutedBy(mutedUserId: number): ReadonlySet<number> {
    return this.byMuted.get(mutedUserId) ?? NOBODY;
  }

  /** A user's mutes, in the order they were made (register's and the event's `muted_users`). */
  of(userId: number): Mute[] {
    return [...(this.byMuter.get(userId) ?? [])].map(([id, atMs]) => ({ id, timestamp: Math.floor(atMs / 1000) }));
  }
}
