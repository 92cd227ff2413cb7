// A fast answer to "would this zod schema give back this very value?", for the values Parley
// checks on hot paths: event payloads as they are built (events/define.ts) and database rows as
// they are read (store/database.ts).
//
// zod's parse builds a new copy of the value on every call, with a context and a result object
// per field: a tenth of what a typing request allocated. Such values are almost always already
// exactly what their schema describes, so the check below walks the value once, allocating
// nothing, and says whether zod would return an equal value (the same keys and values; key order
// aside). When it would not — the value is invalid, or zod would change it (strip an unknown key,
// fill in a default, transform it) — the caller runs zod, whose result (or error) is then the
// answer, as before.
//
// Schema kinds not compiled here are checked by zod itself, node by node: correct, only slower.
import { isDeepStrictEqual } from 'node:util';
import { z, type ZodTypeAny } from 'zod';

const EXACT = 0;
/** Valid, but zod's result differs from the value (a stripped key, a default). */
const CHANGED = 1;
const INVALID = 2;
type Verdict = typeof EXACT | typeof CHANGED | typeof INVALID;
type Check = (v: unknown) => Verdict;

/**
 * An object literal's kind of object: what producers build. Others that zod parses as objects
 * (instances of classes, objects without a prototype, which zod copies into plain objects) are
 * left to zod.
 */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

/** A value that is not a plain object: an array or a primitive is invalid, any other object is zod's to judge. */
function notPlain(v: unknown, viaZod: Check): Verdict {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? viaZod(v) : INVALID;
}

/** zod's own parse of one node: valid or not, and whether its result equals the value. */
function byZod(schema: ZodTypeAny): Check {
  return (v) => {
    const r = schema.safeParse(v);
    if (!r.success) return INVALID;
    return isDeepStrictEqual(r.data, v) ? EXACT : CHANGED;
  };
}

function stringCheck(s: z.ZodString): Check {
  const bounds: Array<(n: number) => boolean> = [];
  for (const c of s._def.checks) {
    if (c.kind === 'min') bounds.push((n) => n >= c.value);
    else if (c.kind === 'max') bounds.push((n) => n <= c.value);
    else if (c.kind === 'length') bounds.push((n) => n === c.value);
    else return byZod(s);
  }
  return (v) => {
    if (typeof v !== 'string') return INVALID;
    for (const ok of bounds) if (!ok(v.length)) return INVALID;
    return EXACT;
  };
}

function numberCheck(s: z.ZodNumber): Check {
  const tests: Array<(n: number) => boolean> = [];
  for (const c of s._def.checks) {
    if (c.kind === 'int') tests.push(Number.isInteger);
    else if (c.kind === 'finite') tests.push(Number.isFinite);
    else if (c.kind === 'min') tests.push(c.inclusive ? (n) => n >= c.value : (n) => n > c.value);
    else if (c.kind === 'max') tests.push(c.inclusive ? (n) => n <= c.value : (n) => n < c.value);
    else return byZod(s);
  }
  return (v) => {
    if (typeof v !== 'number' || Number.isNaN(v)) return INVALID;
    for (const ok of tests) if (!ok(v)) return INVALID;
    return EXACT;
  };
}

function arrayCheck(s: z.ZodArray<ZodTypeAny>): Check {
  const item = compile(s.element);
  const viaZod = byZod(s);
  const { minLength, maxLength, exactLength } = s._def;
  return (v) => {
    if (!Array.isArray(v)) return INVALID;
    if (minLength && v.length < minLength.value) return INVALID;
    if (maxLength && v.length > maxLength.value) return INVALID;
    if (exactLength && v.length !== exactLength.value) return INVALID;
    let verdict: Verdict = EXACT;
    for (let i = 0; i < v.length; i++) {
      // A hole reads as undefined here but is copied as one by zod: let zod decide.
      if (!(i in v)) return viaZod(v);
      const r = item(v[i]);
      if (r === INVALID) return INVALID;
      if (r === CHANGED) verdict = CHANGED;
    }
    return verdict;
  };
}

function objectCheck(s: z.AnyZodObject): Check {
  if (!(s._def.catchall instanceof z.ZodNever) || s._def.unknownKeys === 'passthrough') return byZod(s);
  const strict = s._def.unknownKeys === 'strict';
  const shape = s.shape as Record<string, ZodTypeAny>;
  // zod copies a field it finds with `in`: for a name Object.prototype has, an inherited value.
  const fields = Object.entries(shape).map(([key, schema]) => ({ key, check: compile(schema), inherits: key in Object.prototype }));
  const viaZod = byZod(s);
  return (v) => {
    if (!isPlainObject(v)) return notPlain(v, viaZod);
    let verdict: Verdict = EXACT;
    for (const f of fields) {
      if (f.inherits && f.key in v && !Object.prototype.hasOwnProperty.call(v, f.key)) return viaZod(v);
      const r = f.check(v[f.key]);
      if (r === INVALID) return INVALID;
      if (r === CHANGED) verdict = CHANGED;
    }
    for (const k in v) {
      if (Object.prototype.hasOwnProperty.call(shape, k) || !Object.prototype.hasOwnProperty.call(v, k)) continue;
      if (strict) return INVALID;
      verdict = CHANGED; // stripped by zod
    }
    return verdict;
  };
}

function recordCheck(s: z.ZodRecord): Check {
  const key = s._def.keyType;
  if (!(key instanceof z.ZodString) || key._def.checks.length > 0) return byZod(s);
  const value = compile(s._def.valueType as ZodTypeAny);
  const viaZod = byZod(s);
  return (v) => {
    if (!isPlainObject(v)) return notPlain(v, viaZod);
    let verdict: Verdict = EXACT;
    for (const k in v) {
      if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
      // zod copies such a key into a plain object, where it would set the prototype instead.
      if (k === '__proto__') return viaZod(v);
      const r = value(v[k]);
      if (r === INVALID) return INVALID;
      if (r === CHANGED) verdict = CHANGED;
    }
    return verdict;
  };
}

/** zod answers a union with its first option that accepts the value. */
function unionCheck(s: z.ZodUnion<readonly [ZodTypeAny, ...ZodTypeAny[]]>): Check {
  const options = s.options.map(compile);
  return (v) => {
    for (const option of options) {
      const r = option(v);
      if (r !== INVALID) return r;
    }
    return INVALID;
  };
}

function discriminatedUnionCheck(s: z.ZodDiscriminatedUnion<string, z.AnyZodObject[]>): Check {
  const byValue = new Map<unknown, Check>();
  for (const [value, option] of s.optionsMap) byValue.set(value, compile(option));
  const { discriminator } = s;
  const viaZod = byZod(s);
  return (v) => {
    if (!isPlainObject(v)) return notPlain(v, viaZod);
    const option = byValue.get(v[discriminator]);
    return option ? option(v) : INVALID;
  };
}

const compiled = new WeakMap<ZodTypeAny, Check>();

/**
 * A Buffer, as pg reads a bytea column. zod's `z.instanceof(Buffer)` is an opaque refinement that
 * would go to zod for every row; this one schema the checker recognizes and checks by itself.
 */
export const bufferSchema = z.instanceof(Buffer);

function compile(s: ZodTypeAny): Check {
  let check = compiled.get(s);
  if (check) return check;
  check = compileNode(s);
  compiled.set(s, check);
  return check;
}

function compileNode(s: ZodTypeAny): Check {
  if (s instanceof z.ZodString) return stringCheck(s);
  if (s instanceof z.ZodNumber) return numberCheck(s);
  if (s instanceof z.ZodBoolean) return (v) => (typeof v === 'boolean' ? EXACT : INVALID);
  if (s instanceof z.ZodNull) return (v) => (v === null ? EXACT : INVALID);
  if (s instanceof z.ZodUnknown || s instanceof z.ZodAny) return () => EXACT;
  if (s === bufferSchema) return (v) => (v instanceof Buffer ? EXACT : INVALID);
  if (s instanceof z.ZodLiteral) {
    const value: unknown = s.value;
    return (v) => (v === value ? EXACT : INVALID);
  }
  if (s instanceof z.ZodEnum) {
    const values = new Set<unknown>(s.options as string[]);
    return (v) => (typeof v === 'string' && values.has(v) ? EXACT : INVALID);
  }
  if (s instanceof z.ZodOptional) {
    const inner = compile(s.unwrap() as ZodTypeAny);
    return (v) => (v === undefined ? EXACT : inner(v));
  }
  if (s instanceof z.ZodNullable) {
    const inner = compile(s.unwrap() as ZodTypeAny);
    return (v) => (v === null ? EXACT : inner(v));
  }
  if (s instanceof z.ZodArray) return arrayCheck(s);
  if (s instanceof z.ZodObject) return objectCheck(s);
  if (s instanceof z.ZodRecord) return recordCheck(s);
  if (s instanceof z.ZodUnion) return unionCheck(s);
  if (s instanceof z.ZodDiscriminatedUnion) return discriminatedUnionCheck(s);
  return byZod(s);
}

/**
 * A function answering whether `schema.parse(value)` would return a value equal to `value`
 * (deeply, key order aside). false covers both an invalid value and one that zod would change.
 */
export function exactCheck(schema: ZodTypeAny): (value: unknown) => boolean {
  const check = compile(schema);
  return (value) => check(value) === EXACT;
}

/** exactCheck(schema)(value), for callers that do not keep the checker (compiled once per schema). */
export const givesBack = (schema: ZodTypeAny, value: unknown): boolean => compile(schema)(value) === EXACT;
