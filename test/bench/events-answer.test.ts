// The load generators' reading of event answers (their UTF-8 bytes) agrees with JSON.parse, on
// answers shaped like Parley's and on strings made to confuse a text search.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { countType, lastEventId } from '../../bench/load/events-answer.js';

const t = suite('bench: reading event answers');

/** Strings that look like JSON structure, quotes and escapes included. */
const TRICKY = [
  'plain',
  'typing', // `"topic":"typing"`: what the count scans for first (`yping"`), in a member not named type
  'xtyping',
  '"type":"typing"',
  '{"type":"typing","id":999999}',
  'ends with a backslash \\',
  '\\"type\\":\\"typing\\"',
  '],"queue_id":"x"}',
  '"events":[{"id":5}]',
  'ünïcödé ✓ 🙂',
  '}}]]{{[[',
];

function randomEvent(id: number, rnd: () => number): Record<string, unknown> {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const type = pick(['typing', 'message', 'heartbeat', 'presence']);
  const e: Record<string, unknown> = { type };
  if (type === 'typing') Object.assign(e, { op: 'start', sender: { user_id: 3, email: pick(TRICKY) }, topic: pick(TRICKY) });
  if (type === 'message') e.message = { id: id * 7 + 1000, type: 'stream', content: pick(TRICKY), reactions: [{ emoji_name: pick(TRICKY) }] };
  if (type === 'presence') e.presence = { website: { status: pick(TRICKY) } };
  e.id = id; // last, as Parley writes it; the reader does not rely on that (see below)
  if (rnd() < 0.3) return { id, ...e }; // id first instead
  return e;
}

/** A deterministic generator, so a failure can be repeated. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

t('counts and the last id agree with a full parse, over many random answers', () => {
  const rnd = seeded(42);
  for (let round = 0; round < 500; round++) {
    const n = Math.floor(rnd() * 6);
    let id = Math.floor(rnd() * 1000);
    const events = Array.from({ length: n }, () => randomEvent((id += 1 + Math.floor(rnd() * 3)), rnd));
    const text =
      rnd() < 0.5
        ? JSON.stringify({ result: 'success', msg: '', events, queue_id: `q-${round}` })
        : JSON.stringify({ events }); // a WebSocket frame
    const body = Buffer.from(text);
    const parsed = JSON.parse(text) as { events: Array<{ type: string; id: number }> };
    for (const type of ['typing', 'message', 'heartbeat']) {
      assert.is(countType(body, type), parsed.events.filter((e) => e.type === type).length, `${type} in ${text}`);
    }
    assert.is(lastEventId(body), parsed.events.length ? parsed.events.at(-1)!.id : -Infinity, text);
  }
});

t('an answer without events, and scalar members after the array that hold brackets and quotes', () => {
  assert.is(lastEventId(Buffer.from('{"result":"success","msg":"","events":[],"queue_id":"a"}')), -Infinity);
  assert.is(lastEventId(Buffer.from('{"result":"error","msg":"Bad event queue ID","code":"BAD_EVENT_QUEUE_ID"}')), -Infinity);
  const body = Buffer.from(JSON.stringify({ events: [{ type: 'typing', id: 7 }], note: ']}"{[', n: 3, ok: true, none: null }));
  assert.is(lastEventId(body), 7);
  assert.is(countType(body, 'typing'), 1);
});

t('members after the array that are not scalars are refused, not misread', () => {
  for (const after of [{ list: [{ a: ['}'] }] }, { names: ['a', 'b'] }, { obj: { id: 3 } }]) {
    const text = JSON.stringify({ events: [{ type: 'typing', id: 7 }], ...after });
    assert.throws(() => lastEventId(Buffer.from(text)), /not a scalar|not an event|misread/, text);
  }
});

t.run();
