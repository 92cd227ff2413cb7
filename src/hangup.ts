// A request's client going away, as the parked long-poll that waits for it sees it.

const HUNG_UP = 1;
/** The first bit of Hangup's `bits` a subclass may use for flags of its own. */
export const HANGUP_FREE_BIT = HUNG_UP << 1;

/**
 * Fired when a request's client goes away; a parked long-poll listens to it. One exists per
 * request, tens of thousands at once when polls are parked, so it is a flag and one listener: an
 * AbortController with its event target and listener costs about a kilobyte.
 */
export class Hangup implements HangupSource {
  private listener: HangupListener | null = null;
  /**
   * HUNG_UP, and above it flags of a subclass's own (from HANGUP_FREE_BIT): one field, where a
   * field for each flag cost a parked request 8 bytes more.
   */
  protected bits = 0;

  get gone(): boolean {
    return (this.bits & HUNG_UP) !== 0;
  }

  /**
   * `l` is told once, when the client goes away (not if it already has); null stops listening.
   * A listener is an object that waits anyway (a parked poll), so no closure is kept over it.
   */
  listen(l: HangupListener | null): void {
    this.listener = l;
  }

  /** The client went away (uWS `onAborted`); later calls do nothing. */
  fire(): void {
    if (this.gone) return;
    this.bits |= HUNG_UP;
    const l = this.listener;
    this.listener = null;
    l?.hungUp();
  }
}

export interface HangupListener {
  hungUp(): void;
}

/** What a listener sees of a Hangup: whether the client has gone, and where to be told. */
export interface HangupSource {
  readonly gone: boolean;
  listen(l: HangupListener | null): void;
}
