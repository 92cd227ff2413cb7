// What a parked client reads from an answer of events (a long-poll's body, a WebSocket frame),
// without parsing all of it: how many events of one type it holds, and the id of its last event
// (the next last_event_id). A typing loop's parked clients get about a million events a second; a
// generator that JSON.parsed each answer spent nearly a core on it, on the same two cores as the
// server it measured, and R1's clients parse nothing. Both readers work on the answer's bytes, as
// they arrived: a typing loop's answers come at about 150 MB a second, and decoding each into a
// string, to be searched once and collected, cost the generators 7 % of their CPU (7.0 s against
// 6.5 in a typing run). They are exact on any JSON that JSON.stringify writes, as UTF-8 (see
// events-answer.test.ts): every character they look for is ASCII, and no byte of a multi-byte
// UTF-8 sequence is.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
const TYPE_KEY = '"type":"';

/** The needle and the part of it searched for, by type (a loop counts one type, many times). */
const needles = new Map<string, { readonly needle: Buffer; readonly skip: number; readonly anchor: Buffer }>();

/**
 * Events of this type: occurrences of `"type":"<type>"`. Inside a string every quote is escaped,
 * so each occurrence is a member named `type`; an event's own is the only one with that value in
 * the events the scenarios count (typing and message events: a message's own type is `stream` or
 * `private`).
 */
export function countType(body: Buffer, type: string): number {
  let found = needles.get(type);
  if (found === undefined) {
    const needle = Buffer.from(`"type":${JSON.stringify(type)}`);
    // A search compares the pattern at each place its first byte occurs; a quote begins nearly
    // every token of JSON, so `"type":…` was compared almost everywhere (240 ns an event in a
    // 1,400-event typing answer). The search is for the needle from its value's second character
    // instead (`yping"`: rare), and the part before it is checked where that is found.
    const skip = Math.min(TYPE_KEY.length + 1, needle.length - 1);
    needles.set(type, (found = { needle, skip, anchor: needle.subarray(skip) }));
  }
  const { needle, skip, anchor } = found;
  let n = 0;
  for (let at = body.indexOf(anchor, skip); at >= 0; at = body.indexOf(anchor, at + 1)) {
    let i = 0;
    while (i < skip && body[at - skip + i] === needle[i]) i++;
    if (i === skip) n++;
  }
  return n;
}

/** Whether the quote at `i` is escaped (an odd run of backslashes before it). */
function escaped(body: Buffer, i: number): boolean {
  let n = 0;
  while (i - 1 - n >= 0 && body[i - 1 - n] === BACKSLASH) n++;
  return n % 2 === 1;
}

/** The opening quote of the string whose closing quote is at `end`. */
function stringStart(body: Buffer, end: number): number {
  for (let i = end - 1; i >= 0; i--) if (body[i] === QUOTE && !escaped(body, i)) return i;
  throw new Error('unterminated string');
}

/** The `[` or `{` that opens what the `]` or `}` at `close` closes. */
function opening(body: Buffer, close: number): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    const c = body[i]!;
    if (c === QUOTE) i = stringStart(body, i);
    else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth++;
    else if ((c === OPEN_BRACKET || c === OPEN_BRACE) && --depth === 0) return i;
  }
  throw new Error('unbalanced JSON');
}

const EVENTS = Buffer.from('"events":[');

/**
 * The `id` of the last event in the object's top-level `events` array (-Infinity: none, or no
 * such array). The members after the array must be scalars, as in Parley's answers (`queue_id`)
 * and frames (none): the reader walks back over them to the array's end and parses the last
 * event alone, never the rest of the array. Anything else throws rather than misreads.
 */
export function lastEventId(body: Buffer): number {
  // The first `"events":[` is the top-level member: a string holding it would escape its quotes,
  // and the answer's own members come before any event's.
  const key = body.indexOf(EVENTS);
  if (key < 0) return -Infinity;
  const open = key + EVENTS.length - 1;
  let close = body.lastIndexOf(CLOSE_BRACE) - 1;
  for (;;) {
    if (close <= open) throw new Error('no end of the events array');
    const c = body[close]!;
    if (c === CLOSE_BRACKET) break;
    if (c === CLOSE_BRACE || c === OPEN_BRACKET || c === OPEN_BRACE) throw new Error('a member after the events array is not a scalar');
    close = c === QUOTE ? stringStart(body, close) - 1 : close - 1;
  }
  let end = close - 1; // the last element's last character, or the array's `[`
  while (end > open && body[end]! <= 0x20) end--;
  if (end === open) return -Infinity;
  if (body[end] !== CLOSE_BRACE) throw new Error('the last element of the events array is not an event');
  const start = opening(body, end);
  let before = start - 1;
  while (body[before]! <= 0x20) before--;
  // The last event begins the array or follows a comma: else the `]` was not the events array's.
  if (before !== open && body[before] !== COMMA) throw new Error('misread the events array');
  return (JSON.parse(body.toString('utf8', start, end + 1)) as { id: number }).id;
}
