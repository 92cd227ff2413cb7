// Response bodies with raw JSON parts (long-poll answers): one buffer, sized from UTF-8 byte
// lengths, each raw part writing itself at its place.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { serializeBody, serializeSuccess } from '../../src/http/dispatch.js';
import { RawJson } from '../../src/domain/raw-json.js';
import { eventsFrame, EventsJson, type BufferedEvent } from '../../src/actors/queues/presentation.js';

class RawBytes extends RawJson {
  readonly byteLength: number;

  constructor(private readonly bytes: Buffer) {
    super();
    this.byteLength = bytes.length;
  }

  write(out: Buffer, at: number): void {
    this.bytes.copy(out, at);
  }
}

const raw = (json: string) => new RawBytes(Buffer.from(json));
const event = (id: number, text: string): BufferedEvent => ({ id, json: Buffer.from(JSON.stringify({ type: 'typing', text, id })) });

const text = (b: string | Buffer) => (typeof b === 'string' ? b : b.toString('utf8'));

const t = suite('serializeBody');

t('without raw parts it is JSON.stringify', () => {
  const body = { result: 'success', msg: '', n: 1 };
  assert.is(serializeBody(body), JSON.stringify(body));
});

t('raw parts land at their keys, in order, among multi-byte text; undefined values are left out', () => {
  const out = serializeBody({ result: 'success', msg: 'été', first: raw('[1,"ß"]'), skipped: undefined, queue_id: 'ü-1', second: raw('{"a":"日本"}'), last: 'x' });
  assert.ok(Buffer.isBuffer(out));
  const text = (out as Buffer).toString('utf8');
  assert.is(text, '{"result":"success","msg":"été","first":[1,"ß"],"queue_id":"ü-1","second":{"a":"日本"},"last":"x"}');
  assert.is((out as Buffer).length, Buffer.byteLength(text));
});

t('a raw part first and last', () => {
  assert.is((serializeBody({ a: raw('[]') }) as Buffer).toString(), '{"a":[]}');
});

t('an event list is written as a JSON array of the events, at its place', () => {
  const events = [event(3, 'a'), event(4, 'ü'), event(5, '')];
  const json = new EventsJson(events);
  const size = json.byteLength;
  const out = Buffer.alloc(size + 4, 0x20);
  json.write(out, 2);
  assert.equal(JSON.parse(out.toString()), [
    { type: 'typing', text: 'a', id: 3 },
    { type: 'typing', text: 'ü', id: 4 },
    { type: 'typing', text: '', id: 5 },
  ]);
  assert.is(out.subarray(0, 2).toString() + out.subarray(size + 2).toString(), '    ', 'nothing written outside its bytes');
  assert.is(new EventsJson([]).byteLength, 2);
  assert.is(eventsFrame([]).toString(), '{"events":[]}');
  assert.equal(JSON.parse(eventsFrame(events).toString()).events.map((e: { id: number }) => e.id), [3, 4, 5]);
  const answer = JSON.parse(text(serializeSuccess({ events: new EventsJson(events), queue_id: 'q' }, [])));
  assert.equal([answer.events.map((e: { id: number }) => e.id), answer.queue_id], [[3, 4, 5], 'q'], 'as a long-poll answer');
});

t('a success body: result and msg first, then the members, then the ignored parameters', () => {
  assert.is(serializeSuccess({ queue_id: 'q', n: 2 }, []), '{"result":"success","msg":"","queue_id":"q","n":2}');
  assert.is(serializeSuccess({}, []), '{"result":"success","msg":""}');
  assert.is(serializeSuccess({}, ['x']), '{"result":"success","msg":"","ignored_parameters_unsupported":["x"]}');
  assert.is(serializeSuccess({ a: undefined, b: 1 }, ['x', 'y']), '{"result":"success","msg":"","b":1,"ignored_parameters_unsupported":["x","y"]}');
  assert.is(text(serializeSuccess({ events: raw('[{"id":1}]') }, ['z'])), '{"result":"success","msg":"","events":[{"id":1}],"ignored_parameters_unsupported":["z"]}');
  assert.is(text(serializeSuccess({ skipped: undefined, events: raw('[]') }, [])), '{"result":"success","msg":"","events":[]}');
});

t("an endpoint's own msg, result or ignored list takes the default's place, as a spread would", () => {
  assert.is(serializeSuccess({ msg: 'note', a: 1 }, []), '{"result":"success","msg":"note","a":1}');
  assert.is(serializeSuccess({ a: 1, result: 'partially_completed' }, []), '{"result":"partially_completed","msg":"","a":1}');
  assert.is(serializeSuccess({ ignored_parameters_unsupported: ['own'] }, ['x']), '{"result":"success","msg":"","ignored_parameters_unsupported":["x"]}');
  for (const body of [{ msg: 'ü', n: [1] }, { n: { deep: 'ß' }, result: 'success' }, { z: null }]) {
    assert.equal(JSON.parse(text(serializeSuccess(body, ['i']))), { result: 'success', msg: '', ...body, ignored_parameters_unsupported: ['i'] });
  }
});

t.run();
