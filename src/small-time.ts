// Moments kept as small integers. V8 keeps a small integer in an object's field itself; a time in
// milliseconds since 1970, or performance.now() with its fraction, is a boxed double there, 16
// bytes more an object. Objects there are tens of thousands of (event queues, parked requests)
// keep a moment as whole units since some origin, modulo 2^30, and only ever take differences,
// modulo 2^30 too: right for any two moments less than 2^30 units apart.

const MASK = 0x3fffffff;

/** `units` (whole or not, since the caller's origin) as a small integer: its whole part modulo 2^30. */
export function smallMoment(units: number): number {
  return Math.floor(units) & MASK;
}

/** Units from `then` to `now` (both smallMoment): right when less than 2^30 apart. */
export function smallSince(then: number, now: number): number {
  return (now - then) & MASK;
}
