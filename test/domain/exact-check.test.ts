// src/domain/exact-check.ts answers "would zod give back this very value?" without zod. Held to
// zod itself: for every event schema of the catalogue and every row schema the store exports, on
// values made after the schema and then damaged (missing fields, stray keys, wrong types,
// anything at all).
import { readdirSync } from 'node:fs';
import { inspect, isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z, type ZodTypeAny } from 'zod';
import { eventDefinitions } from '../../src/domain/events/define.js';
import { bufferSchema, exactCheck } from '../../src/domain/exact-check.js';
import { typingEvent } from '../../src/domain/events/typing.js';

const eventsDir = new URL('../../src/domain/events/', import.meta.url);
for (const f of readdirSync(eventsDir).filter((n) => n.endsWith('.js')).sort()) await import(new URL(f, eventsDir).href);

/** The zod schemas src/store exports (row schemas), by module and name. */
const storeDir = new URL('../../src/store/', import.meta.url);
const rowSchemas: Array<[string, ZodTypeAny]> = [];
for (const f of readdirSync(storeDir).filter((n) => n.endsWith('.js')).sort()) {
  const mod = (await import(new URL(f, storeDir).href)) as Record<string, unknown>;
  for (const [name, value] of Object.entries(mod)) if (value instanceof z.ZodType) rowSchemas.push([`${f}:${name}`, value]);
}

const RUNS = Number(process.env.EXACT_CHECK_RUNS ?? 200);

/** An own, enumerable property, also for names such as `__proto__`. */
function setOwn(o: object, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

const STRAY_KEYS = ['extra', '__proto__', 'toString', 'constructor', 'id', 'op', 'type'];

/**
 * Values shaped after `s`: half of them well-formed, the others damaged here and there (wrong
 * types, missing or undefined fields, stray keys, objects of other kinds, anything at all).
 */
const valueFor = (s: ZodTypeAny): fc.Arbitrary<unknown> => fc.oneof(shaped(s, 0, false), shaped(s, 0, true));

function shaped(s: ZodTypeAny, depth: number, damage: boolean): fc.Arbitrary<unknown> {
  const shape = shapedAfter(s, depth, damage);
  return damage ? fc.oneof({ weight: 12, arbitrary: shape }, { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) }) : shape;
}

/** `clean` normally, `damaged` as well when damaging. */
const either = (damage: boolean, clean: fc.Arbitrary<unknown>, damaged: fc.Arbitrary<unknown>) =>
  damage ? fc.oneof({ weight: 4, arbitrary: clean }, { weight: 1, arbitrary: damaged }) : clean;

function shapedAfter(s: ZodTypeAny, depth: number, damage: boolean): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.anything({ maxDepth: 1 });
  const inner = (x: ZodTypeAny) => shaped(x, depth + 1, damage);
  if (s instanceof z.ZodString) return either(damage, fc.string({ maxLength: 6 }), fc.integer());
  if (s instanceof z.ZodNumber) return either(damage, fc.integer({ min: -3, max: 3 }), fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -0), fc.string({ maxLength: 2 })));
  if (s === bufferSchema) return either(damage, fc.uint8Array({ maxLength: 4 }).map((a) => Buffer.from(a)), fc.oneof(fc.uint8Array({ maxLength: 4 }), fc.string({ maxLength: 4 })));
  if (s instanceof z.ZodBoolean) return either(damage, fc.boolean(), fc.constantFrom('true', 0, null));
  if (s instanceof z.ZodLiteral) return either(damage, fc.constant(s.value as unknown), fc.anything({ maxDepth: 0 }));
  if (s instanceof z.ZodEnum) return either(damage, fc.constantFrom(...(s.options as string[])), fc.string({ maxLength: 4 }));
  if (s instanceof z.ZodOptional) return fc.oneof(fc.constant(undefined), inner(s.unwrap() as ZodTypeAny));
  if (s instanceof z.ZodNullable) return fc.oneof(fc.constant(null), inner(s.unwrap() as ZodTypeAny));
  if (s instanceof z.ZodArray) {
    const items = fc.array(inner(s.element as ZodTypeAny), { maxLength: 3 });
    return either(damage, items, items.map((a) => Object.assign([, ...a], { length: a.length + 1 })));
  }
  if (s instanceof z.ZodObject) return objectFor(Object.entries(s.shape as Record<string, ZodTypeAny>), depth, damage);
  if (s instanceof z.ZodRecord) {
    const key = damage ? fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom(...STRAY_KEYS)) : fc.string({ maxLength: 3 });
    return fc.array(fc.tuple(key, inner(s._def.valueType as ZodTypeAny)), { maxLength: 3 }).map((pairs) => {
      const o = {};
      for (const [k, v] of pairs) setOwn(o, k, v);
      return o;
    });
  }
  if (s instanceof z.ZodUnion) return fc.oneof(...(s.options as ZodTypeAny[]).map(inner));
  if (s instanceof z.ZodDiscriminatedUnion) return fc.oneof(...[...s.optionsMap.values()].map((o) => inner(o as ZodTypeAny)));
  return fc.anything({ maxDepth: 2 });
}

function objectFor(fields: Array<[string, ZodTypeAny]>, depth: number, damage: boolean): fc.Arbitrary<unknown> {
  const present = fields.map(([key, schema]) => {
    // Well-formed: an optional field may be left out; damaged: any field may be missing.
    const optional = schema.isOptional();
    const modes = damage ? ['set', 'set', 'set', 'absent', 'undefined'] : optional ? ['set', 'absent', 'undefined'] : ['set'];
    return fc.record({ key: fc.constant(key), value: shaped(schema, depth + 1, damage), mode: fc.constantFrom(...modes) });
  });
  const stray = fc.array(fc.tuple(fc.constantFrom(...STRAY_KEYS), fc.anything({ maxDepth: 1 })), { maxLength: 2 });
  const extras = damage ? fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: stray }) : fc.constant([]);
  const kinds = damage ? ['plain', 'plain', 'plain', 'null-prototype'] : ['plain'];
  return fc.tuple(fc.tuple(...present), extras, fc.constantFrom(...kinds)).map(([entries, strays, kind]) => {
    const o: object = kind === 'plain' ? {} : Object.create(null);
    for (const e of entries) {
      if (e.mode === 'set') setOwn(o, e.key, e.value);
      else if (e.mode === 'undefined') setOwn(o, e.key, undefined);
    }
    for (const [k, v] of strays) setOwn(o, k, v);
    return o;
  });
}

/** The truth: zod accepts the value and gives back an equal one. */
function zodGivesItBack(s: ZodTypeAny, v: unknown): boolean {
  const r = s.safeParse(v);
  return r.success && isDeepStrictEqual(r.data, v);
}

const t = suite('exact check');

t('the catalogue is loaded', () => {
  assert.ok(eventDefinitions.length >= 30, `${eventDefinitions.length} event definitions`);
});

t('agrees with zod on every event schema', () => {
  for (const def of eventDefinitions) {
    const exact = exactCheck(def.schema);
    fc.assert(
      fc.property(valueFor(def.schema), (v) => exact(v) === zodGivesItBack(def.schema, v)),
      { numRuns: RUNS },
    );
  }
});

t('agrees with zod on every row schema of the store', () => {
  assert.ok(rowSchemas.length >= 15, `${rowSchemas.length} row schemas`);
  for (const [, schema] of rowSchemas) {
    const exact = exactCheck(schema);
    fc.assert(
      fc.property(valueFor(schema), (v) => exact(v) === zodGivesItBack(schema, v)),
      { numRuns: RUNS },
    );
  }
});

t('agrees with zod on the Buffer schema of bytea columns', () => {
  for (const schema of [bufferSchema, bufferSchema.nullable(), z.object({ key: bufferSchema })]) {
    const exact = exactCheck(schema);
    fc.assert(fc.property(valueFor(schema), (v) => exact(v) === zodGivesItBack(schema, v)), { numRuns: RUNS });
  }
  assert.ok(exactCheck(bufferSchema)(Buffer.from('ab')));
  assert.not.ok(exactCheck(bufferSchema)(new Uint8Array(2)));
});

t('the values cover both answers for every schema', () => {
  for (const def of eventDefinitions) {
    const exact = exactCheck(def.schema);
    const sample = fc.sample(valueFor(def.schema), { numRuns: 200, seed: 1 });
    const yes = sample.filter((v) => exact(v)).length;
    assert.ok(yes >= 20 && sample.length - yes >= 20, `${def.type}: ${yes} of ${sample.length} values are given back`);
  }
});

t('agrees with zod on the kinds it leaves to zod and on edge values', () => {
  const cases: Array<[ZodTypeAny, unknown[]]> = [
    [z.string().email(), ['a@b.co', 'nope', 3]],
    [z.number().multipleOf(3), [3, 4, NaN]],
    [z.object({ a: z.number() }).passthrough(), [{ a: 1 }, { a: 1, b: 2 }, { a: 'x' }]],
    [z.object({ a: z.number().default(1) }), [{}, { a: 2 }]],
    [z.object({ a: z.string().transform((s) => s.length) }), [{ a: 'abc' }]],
    [z.object({ a: z.number() }).strict(), [{ a: 1 }, { a: 1, b: 2 }]],
    [z.object({ toString: z.unknown() }), [{}, { toString: 1 }]],
    [z.array(z.number()).min(1).max(2), [[], [1], [1, 2, 3], [1, 'x']]],
    [z.record(z.number()), [{ a: 1 }, JSON.parse('{"__proto__": 1}'), { a: 'x' }]],
    [z.object({ d: z.date() }), [{ d: new Date(0) }, { d: 'x' }]],
    [z.object({ a: z.number() }), [new Map(), [1], null, new (class K { a = 1 })()]],
    [z.union([z.object({ a: z.number() }), z.object({ a: z.number(), b: z.number() }).strict()]), [{ a: 1, b: 2 }, { a: 1 }]],
  ];
  for (const [schema, values] of cases) {
    const exact = exactCheck(schema);
    for (const v of values) assert.is(exact(v), zodGivesItBack(schema, v), `${schema.constructor.name} on ${inspect(v)}`);
  }
});

t('build uses the payload itself when it is exact, and zod when it is not', () => {
  const payload = { op: 'start' as const, message_type: 'direct' as const, sender: { user_id: 1, email: 'a@b.c' }, recipients: [] };
  assert.is(typingEvent.build(payload, { userIds: [1] }).payload, payload);
  const stray = { ...payload, sender: { ...payload.sender, secret: 'x' } };
  const built = typingEvent.build(stray, { userIds: [1] }).payload;
  assert.equal(built, payload, 'the stray key is stripped, as zod does');
  assert.throws(() => typingEvent.build({ ...payload, op: 'pause' as never }, { userIds: [1] }));
});

t.run();
