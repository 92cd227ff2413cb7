// What a matrix entry is: the requests (probes) that aim one route at each visibility's objects,
// what a caller without access must get back, and how to put the fixture back afterwards.
import type { Params, TestResponse } from '../../helpers/server.js';
import { API, type Fixture } from './fixture.js';
import { MESSAGE_VIS, CHANNEL_VIS, type Caller, type ChannelVis, type Level, type MessageVis, type Vis } from './model.js';

export interface Denial {
  readonly status: number;
  /** The code, or the codes any of which is right (a role check may come first). */
  readonly code: string | readonly string[];
}

export interface Probe {
  readonly path: string;
  readonly params?: Params;
  readonly body?: { readonly body: Buffer; readonly contentType: string };
  /** The visibility the probe aims at and the access the call needs there. */
  readonly target?: { readonly vis: Vis; readonly needs: Level };
  /**
   * How a caller without that access is refused: an error with this status and code, or
   * 'quiet' (a success that shows nothing, as a search finds nothing), or 'either'.
   */
  readonly denial?: Denial | 'quiet' | 'either';
  /** A caller with the access must succeed (proves the probe reaches the data). */
  readonly grant?: boolean;
  /** Refused to every caller (another user's queue or attachment). */
  readonly always?: Denial;
}

export interface Entry {
  probes(fx: Fixture, caller: Caller): Probe[] | Promise<Probe[]>;
  /** Undo what one successful probe created (e.g. the queue a registration opened). */
  cleanup?(fx: Fixture, caller: Caller, res: TestResponse): Promise<void>;
  /** Put back what a caller's probes may have changed. */
  after?(fx: Fixture, caller: Caller): Promise<void>;
  /** Removes or moves what it targets: runs after every other route. */
  readonly destructive?: boolean;
}

/** Route key: method and full path pattern, e.g. `GET /api/v1/messages/{message_id}`. */
export type Matrix = Record<string, Entry>;

export const BAD: Denial = { status: 400, code: 'BAD_REQUEST' };
export const NOT_FOUND: Denial = { status: 404, code: 'NOT_FOUND' };
/** Administrator-only routes may refuse on the role before looking at the target. */
export const BAD_OR_NOT_ADMIN: Denial = { status: 400, code: ['BAD_REQUEST', 'UNAUTHORIZED_PRINCIPAL'] };

/** One request aimed at nothing in particular. */
export const plain = (path: string, params: Params = {}): Entry => ({ probes: () => [{ path: `${API}${path}`, params }] });

export const forChannels = (f: (vis: ChannelVis) => Probe | Probe[], only: readonly ChannelVis[] = CHANNEL_VIS): Probe[] => only.flatMap(f);
export const forMessages = (f: (vis: MessageVis) => Probe | Probe[]): Probe[] => MESSAGE_VIS.flatMap(f);

/** The primary message of a visibility. */
export const messageOf = (fx: Fixture, vis: MessageVis): number => (vis === 'dm' ? fx.dm.messageId : fx.channels[vis].messageId);
export const uploadOf = (fx: Fixture, vis: MessageVis) => (vis === 'dm' ? fx.dm.upload : fx.channels[vis].upload);
