// The authorization matrix's model: who calls, what there is to see, and who may see it. The
// model is written out by hand (not derived from src/domain) so that a wrong rule in the server
// shows up as a disagreement instead of being copied into the test.

/** Every caller of the matrix. */
export const CALLERS = [
  'anonymous',
  'wrongKey',
  'otherOrg',
  'otherOrgHome',
  'deactivated',
  'guest',
  'member',
  'moderator',
  'admin',
  'owner',
  'bot',
] as const;
export type Caller = (typeof CALLERS)[number];

/**
 * Callers refused at the door of this organization: no credentials, a key that does not match,
 * another organization's key sent to this organization's host, a deactivated account.
 */
export const UNAUTHENTICATED: ReadonlySet<Caller> = new Set(['anonymous', 'wrongKey', 'otherOrg', 'deactivated']);

/** The 401 each of them gets from an endpoint that needs credentials. */
export const REFUSAL: Readonly<Record<string, { code: string; msg: string }>> = {
  anonymous: { code: 'UNAUTHORIZED', msg: 'Not logged in: API authentication or user session required' },
  wrongKey: { code: 'INVALID_API_KEY', msg: 'Invalid API key' },
  otherOrg: { code: 'INVALID_API_KEY', msg: 'Invalid API key' },
  deactivated: { code: 'USER_DEACTIVATED', msg: 'Account is deactivated' },
};

/**
 * What there is to see:
 * - public: a public channel none of the callers is subscribed to;
 * - protected: a private channel with protected history; the member subscribed after its
 *   messages were sent (so may see the channel and later messages, never the earlier ones);
 * - shared: a private channel with shared history the guest joined after its messages;
 * - webPublic: a web-public channel (spectators may read it);
 * - archived: an archived private channel with shared history the member belongs to;
 * - dm: direct messages (one-on-one and group) between users who are not callers;
 * - hiddenUser: a user the guest may not access (can_access_all_users_group = members): name,
 *   email, status, profile data, presence.
 */
export const VISIBILITIES = ['public', 'protected', 'shared', 'webPublic', 'archived', 'dm', 'hiddenUser'] as const;
export type Vis = (typeof VISIBILITIES)[number];
export const CHANNEL_VIS = ['public', 'protected', 'shared', 'webPublic', 'archived'] as const;
export type ChannelVis = (typeof CHANNEL_VIS)[number];
export const MESSAGE_VIS = ['public', 'protected', 'shared', 'webPublic', 'archived', 'dm'] as const;
export type MessageVis = (typeof MESSAGE_VIS)[number];

/**
 * - meta: that a channel exists, its name, description and subscribers (for hiddenUser: the
 *   user's identity and presence);
 * - content: messages, topics, uploads, edit history, reactions, search results;
 * - late: messages sent after the late subscriber joined (differs from content only for the
 *   protected-history channel).
 */
export type Level = 'meta' | 'content' | 'late';

const NON_GUESTS: readonly Caller[] = ['member', 'moderator', 'admin', 'owner', 'bot'];
const EVERYONE_HERE: readonly Caller[] = ['guest', ...NON_GUESTS];

const RULES: Readonly<Record<Vis, Readonly<Record<Level, readonly Caller[]>>>> = {
  public: { meta: NON_GUESTS, content: NON_GUESTS, late: NON_GUESTS },
  protected: { meta: ['owner', 'admin', 'member'], content: [], late: ['member'] },
  shared: { meta: ['owner', 'admin', 'guest'], content: ['guest'], late: ['guest'] },
  webPublic: { meta: [...EVERYONE_HERE, 'anonymous'], content: [...EVERYONE_HERE, 'anonymous'], late: [...EVERYONE_HERE, 'anonymous'] },
  archived: { meta: ['owner', 'admin', 'member'], content: ['member'], late: ['member'] },
  dm: { meta: [], content: [], late: [] },
  hiddenUser: { meta: NON_GUESTS, content: NON_GUESTS, late: NON_GUESTS },
};

/**
 * Whose view counts: a caller refused at the door sees nothing; `otherOrgHome` (another
 * organization's user at its own host) sees nothing of this organization; an endpoint that never
 * authenticates answers everyone as it answers an anonymous client.
 */
export type Viewer = Caller | 'nobody';

export function entitled(viewer: Viewer, vis: Vis, level: Level): boolean {
  if (viewer === 'nobody') return false;
  return RULES[vis][level].includes(viewer);
}

/** A string that only ever appears in one place of the fixture. */
export interface Marker {
  readonly text: string;
  readonly what: string;
  readonly vis: Vis | 'credentials';
  readonly entitled: (viewer: Viewer) => boolean;
}

/** An id whose appearance (under a key of its kind) tells something. */
export interface SecretId {
  readonly kind: 'message' | 'channel';
  readonly id: number;
  readonly what: string;
  readonly entitled: (viewer: Viewer) => boolean;
}

export function marker(vis: Vis, level: Level, what: string, text: string): Marker {
  return { text: text.toLowerCase(), what, vis, entitled: (v) => entitled(v, vis, level) };
}
