// A request's client going away, as the parked long-poll that waits for it sees it.

/**
 * Fired when a request's client goes away; a parked long-poll listens to it. One exists per
 * request, tens of thousands at once when polls are parked, so it is a flag and one listener: an
 * AbortController with its event target and listener costs about a kilobyte.
 */
export class Hangup implements HangupSource {
  private listener: HangupListener | null = null;
  private hungUp = false;

  get gone(): boolean {
    return this.hungUp;
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
    if (this.hungUp) return;
    this.hungUp = true;
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
