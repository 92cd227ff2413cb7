// JSON that a response body takes in as UTF-8 bytes the value writes itself: an event list whose
// parts many queues share is never made into one string (serializeBody in http/dispatch.ts).

/** A value written into a JSON body as exactly `byteLength` bytes of JSON. */
export abstract class RawJson {
  abstract readonly byteLength: number;
  /** Writes exactly byteLength bytes into `out` at `at`. */
  abstract write(out: Buffer, at: number): void;
}
