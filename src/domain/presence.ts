// Presence rules (pure): how a client's report changes a user's record, when that counts as
// coming online, and the two formats of a presence entry (spec: User presence entry).
import { RawJson } from './raw-json.js';

/** Reports closer together than this do not move a timestamp (many tabs, many devices). */
export const PRESENCE_MIN_UPDATE_MS = 55_000;
/** A user not active for this long is offline; becoming active again is news worth an event. */
export const OFFLINE_THRESHOLD_MS = 140_000;
/** The legacy format calls a user active when last activity is this close to the last connection. */
const LEGACY_ACTIVE_OFFSET_MS = 70_000;

export type PresenceStatus = 'active' | 'idle';

export interface PresenceRecord {
  readonly userId: number;
  /** Last report with status active (ms), or null if never active. */
  readonly lastActive: number | null;
  /** Last report of any status (ms). */
  readonly lastConnected: number | null;
  /** Position in the organization's presence sequence (0 = never written). */
  readonly lastUpdateId: number;
}

export interface PresenceChange {
  /** The new record without its update id, or null when the report changes nothing. */
  readonly next: Omit<PresenceRecord, 'lastUpdateId'> | null;
  /** First report ever, or active after being offline: other users are told at once. */
  readonly announce: boolean;
}

/** Apply one report made at `now` to the user's record (undefined: none yet). */
export function applyPresenceReport(
  userId: number,
  prev: PresenceRecord | undefined,
  status: PresenceStatus,
  now: number,
): PresenceChange {
  const creating = prev === undefined;
  const sinceActive = prev?.lastActive != null ? now - prev.lastActive : Infinity;
  const sinceConnected = prev?.lastConnected != null ? now - prev.lastConnected : Infinity;
  let lastActive = prev?.lastActive ?? null;
  let lastConnected = prev?.lastConnected ?? null;
  let changed = false;
  if (creating || sinceConnected >= PRESENCE_MIN_UPDATE_MS) {
    lastConnected = now;
    changed = true;
  }
  if (status === 'active' && (creating || sinceActive >= PRESENCE_MIN_UPDATE_MS)) {
    lastActive = now;
    changed = true;
    if (lastConnected === null || lastConnected < lastActive) lastConnected = lastActive;
  }
  const cameOnline = status === 'active' && sinceActive > OFFLINE_THRESHOLD_MS;
  return { next: changed ? { userId, lastActive, lastConnected } : null, announce: changed && (creating || cameOnline) };
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** Timestamps of a record; a missing one reads as the account's creation (dateJoined). */
function times(r: PresenceRecord, dateJoined: number): { active: number; connected: number } {
  const connected = r.lastConnected ?? dateJoined;
  return { active: r.lastActive ?? dateJoined, connected };
}

export interface ModernPresence {
  readonly active_timestamp: number;
  readonly idle_timestamp: number;
}

export function modernPresence(r: PresenceRecord, dateJoined: number): ModernPresence {
  const t = times(r, dateJoined);
  return { active_timestamp: seconds(t.active), idle_timestamp: seconds(t.connected) };
}

/**
 * A modern entry as JSON text, `"<user id>":{"active_timestamp":…,"idle_timestamp":…}`: what
 * JSON.stringify writes for `{ [userId]: modernPresence(r, dateJoined) }` inside its braces. ASCII.
 */
export function modernPresenceJson(userId: number, r: PresenceRecord, dateJoined: number): string {
  const m = modernPresence(r, dateJoined);
  return `"${userId}":{"active_timestamp":${m.active_timestamp},"idle_timestamp":${m.idle_timestamp}}`;
}

const OPEN = 0x7b; // {
const COMMA = 0x2c;
const CLOSE = 0x7d; // }

/**
 * Modern entries already in JSON (modernPresenceJson), written into a response body as one
 * object, `{e1,e2,…}`. A client's first poll (last_update_id -1) is answered with every entry, a
 * thousand in a thousand-user organization, and its later polls with those changed since; each
 * entry is made into JSON once per change of its record, not once per client that reads it.
 */
export class PresencesJson extends RawJson {
  readonly byteLength: number;

  constructor(private readonly entries: readonly string[]) {
    super();
    let size = 2 + Math.max(0, entries.length - 1);
    for (const e of entries) size += e.length;
    this.byteLength = size;
  }

  write(out: Buffer, at: number): void {
    out[at++] = OPEN;
    for (let i = 0; i < this.entries.length; i++) {
      if (i > 0) out[at++] = COMMA;
      at += out.write(this.entries[i]!, at, 'latin1');
    }
    out[at] = CLOSE;
  }
}

export interface LegacyClientPresence {
  readonly client: 'website';
  readonly status: PresenceStatus;
  readonly timestamp: number;
  readonly pushable?: false;
}

/** The legacy `website` object: one status and timestamp, the more telling of the two. */
export function legacyWebsitePresence(r: PresenceRecord, dateJoined: number): Required<LegacyClientPresence> {
  const t = times(r, dateJoined);
  const active = t.active + LEGACY_ACTIVE_OFFSET_MS >= t.connected;
  return { client: 'website', status: active ? 'active' : 'idle', timestamp: seconds(active ? t.active : t.connected), pushable: false };
}

/** The legacy entry: exactly `website` and `aggregated` (same data, no `pushable` in the latter). */
export function legacyPresence(r: PresenceRecord, dateJoined: number): { website: LegacyClientPresence; aggregated: LegacyClientPresence } {
  const website = legacyWebsitePresence(r, dateJoined);
  return { website, aggregated: { client: website.client, status: website.status, timestamp: website.timestamp } };
}

/** Is the record recent enough for a fetch limited to `days` (null: no limit)? */
export function withinHistory(r: PresenceRecord, dateJoined: number, days: number | null, now: number): boolean {
  return days === null || times(r, dateJoined).connected >= now - days * 86_400_000;
}
