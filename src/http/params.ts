// The API's parameter codecs (conventions 2 and 8): every value arrives as text; arrays and
// objects are JSON-encoded, booleans are `true`/`false`. Each codec is a zod schema over the raw
// string whose messages carry a `{var}` placeholder; validateParams substitutes the parameter's
// name (with an index path inside JSON values) and turns the first problem into an ApiError.
import { z, type ZodErrorMap, type ZodTypeAny } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { ApiError, errors } from '../domain/errors.js';
import { hasLoneSurrogate } from '../domain/unicode.js';

const VAR = '{var}';

/** What each codec accepts, for the OpenAPI document (src/http/openapi.ts). */
export interface ParamDoc {
  readonly schema: Record<string, unknown>;
  /** The value is JSON-encoded text. */
  readonly json: boolean;
}
const docs = new WeakMap<ZodTypeAny, ParamDoc>();

/** A codec's verdict on a problem: the message, with `{var}` for the parameter's name. */
class Invalid {
  constructor(readonly message: string) {}
}
type Check<T> = (s: string) => T | Invalid;
/** Each codec's check, for validateParams' compiled path. */
const checks = new WeakMap<ZodTypeAny, Check<unknown>>();

/**
 * A JSON schema, or how to build one: those of JSON-encoded parameters come from
 * zod-to-json-schema, which took about 25 ms of every start; they are built when the OpenAPI
 * document is first asked for.
 */
type DocSchema = Record<string, unknown> | (() => Record<string, unknown>);

function paramDocOf(schema: DocSchema, json: boolean): ParamDoc {
  if (typeof schema !== 'function') return { schema, json };
  let built: Record<string, unknown> | undefined;
  return {
    json,
    get schema() {
      return (built ??= schema());
    },
  };
}

/** A codec: a zod schema over the raw string that runs `check`, documented for OpenAPI. */
function codec<T>(check: Check<T>, schema: DocSchema, json = false) {
  const c = raw.transform((s, ctx): T => {
    const v = check(s);
    if (!(v instanceof Invalid)) return v;
    ctx.addIssue({ code: 'custom', message: v.message });
    return z.NEVER;
  });
  docs.set(c, paramDocOf(schema, json));
  checks.set(c, check as Check<unknown>);
  return c;
}

/** The documentation of a parameter schema, seen through optional/default wrappers. */
export function paramDoc(schema: ZodTypeAny): { doc: ParamDoc | undefined; required: boolean; default?: unknown } {
  let s = schema;
  let required = true;
  let dflt: unknown;
  for (;;) {
    if (s instanceof z.ZodOptional) {
      required = false;
      s = s.unwrap();
    } else if (s instanceof z.ZodDefault) {
      required = false;
      dflt = s._def.defaultValue();
      s = s.removeDefault();
    } else break;
  }
  return { doc: docs.get(s), required, ...(dflt !== undefined ? { default: dflt } : {}) };
}
const raw = z.string({ invalid_type_error: `${VAR} is not a string` });

/** Inside JSON values, messages use `{at}`: the parameter name plus the path, e.g. `ids[2]`. */
const AT = '{at}';
const pathText = (path: ReadonlyArray<string | number>) =>
  path.map((p) => (typeof p === 'number' ? `[${p}]` : `["${p}"]`)).join('');

/** Messages for values inside a JSON parameter, e.g. `user_ids[2] is not an integer`. */
const jsonErrorMap: ZodErrorMap = (issue, ctx) => {
  // A message given by the schema itself (it mentions {at}) wins.
  if (ctx.defaultError.includes(AT)) return { message: ctx.defaultError };
  const at = AT;
  switch (issue.code) {
    case 'invalid_type':
      if (issue.received === 'undefined') return { message: `${at} key is missing` };
      return { message: `${at} is not ${TYPE_NAMES[issue.expected] ?? `a ${issue.expected}`}` };
    case 'invalid_enum_value':
    case 'invalid_literal':
    case 'invalid_union':
    case 'invalid_union_discriminator':
      return { message: `Invalid ${at}` };
    case 'too_big':
      if (issue.type === 'string') return { message: `${at} is too long (limit: ${issue.maximum} characters)` };
      if (issue.type === 'array') return { message: `${at} has too many items (limit: ${issue.maximum})` };
      return { message: `${at} is too large` };
    case 'too_small':
      if (issue.type === 'string' && issue.minimum === 1) return { message: `${at} cannot be blank` };
      if (issue.type === 'string') return { message: `${at} is too short` };
      if (issue.type === 'array') return { message: `${at} needs at least ${issue.minimum} items` };
      return { message: `${at} is too small` };
    case 'unrecognized_keys':
      return { message: `Unexpected arguments in ${at}: ${issue.keys.join(', ')}` };
    case 'custom':
      return { message: issue.message ?? `Invalid ${at}` };
    default:
      return { message: `Invalid ${at}` };
  }
};

const TYPE_NAMES: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  array: 'a list',
  object: 'a dict',
  null: 'null',
};

function parseIntStrict(s: string): number | null {
  const t = s.trim();
  if (!/^-?\d{1,16}$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * Codecs: `p.int()`, `p.bool()`, `p.json(schema)`, … All accept the raw string, so defaults are
 * written the way a client would send them: `p.bool().default('false')`, `p.intList().default('[]')`.
 */
/** Largest value of a Postgres `integer` column. */
const INT4_MAX = 2_147_483_647;

export const p = {
  /**
   * Plain text; optionally bounded. NUL characters are refused (Postgres cannot store them) unless
   * `nul: 'handler'` says the handler refuses them with a message of its own (message content).
   */
  string(o: { max?: number; min?: number; trim?: boolean; nul?: 'handler' } = {}) {
    return codec((s): string | Invalid => {
      if (o.nul === undefined && s.includes('\u0000')) return new Invalid(`${VAR} must not contain null bytes`);
      const v = o.trim ? s.trim() : s;
      if (o.max !== undefined && [...v].length > o.max) return new Invalid(`${VAR} is too long (limit: ${o.max} characters)`);
      if (o.min !== undefined && v.length < o.min) return new Invalid(o.min === 1 ? `${VAR} cannot be blank` : `${VAR} is too short`);
      return v;
    }, { type: 'string', ...(o.max !== undefined ? { maxLength: o.max } : {}), ...(o.min !== undefined ? { minLength: o.min } : {}) });
  },

  int(o: { min?: number; max?: number } = {}) {
    return codec((s): number | Invalid => {
      const n = parseIntStrict(s);
      if (n === null) return new Invalid(`${VAR} is not an integer`);
      if ((o.min !== undefined && n < o.min) || (o.max !== undefined && n > o.max)) return new Invalid(`${VAR} is out of range`);
      return n;
    }, { type: 'integer', ...(o.min !== undefined ? { minimum: o.min } : {}), ...(o.max !== undefined ? { maximum: o.max } : {}) });
  },

  /**
   * The id of a row looked up in Postgres by an `integer` key (attachments, invitations, folders,
   * snippets): a larger number names nothing, and is refused here rather than reaching the query
   * as an error. Ids resolved from cached state (users, channels, groups) need no such bound.
   */
  id() {
    return p.int({ max: INT4_MAX });
  },

  bool() {
    return codec((s): boolean | Invalid => {
      const t = s.trim();
      if (t === 'true' || t === 'True') return true;
      if (t === 'false' || t === 'False') return false;
      return new Invalid(`${VAR} is not a boolean`);
    }, { type: 'boolean' });
  },

  enum<const T extends readonly [string, ...string[]]>(values: T) {
    return codec((s): T[number] | Invalid => ((values as readonly string[]).includes(s) ? s : new Invalid(`Invalid ${VAR}`)), {
      type: 'string',
      enum: [...values],
    });
  },

  /** A JSON-encoded value validated by `schema` (messages name the path inside it). */
  json<T extends ZodTypeAny>(schema: T) {
    return codec(jsonCheck(schema), () => jsonSchemaOf(schema), true);
  },

  /**
   * A JSON array of integers, e.g. user_ids or a direct message's `to`. A valid one is checked
   * without zod (its parse was most of a direct typing notification's validation); anything else
   * goes through the schema, for the same messages.
   */
  intList() {
    const schema = z.array(j.int());
    return codec(jsonCheck(schema, safeIntegers), () => jsonSchemaOf(schema), true);
  },
};

/**
 * The check of a JSON-encoded parameter: parsed, then `accept`ed as it is when a cheaper test
 * knows it valid (one that also rules out strings Postgres cannot store), else checked for such
 * strings and run through the schema.
 */
function jsonCheck<T extends ZodTypeAny>(schema: T, accept?: (value: unknown) => z.output<T> | undefined): Check<z.output<T>> {
  return (s) => {
    let value: unknown;
    try {
      value = JSON.parse(s);
    } catch {
      return new Invalid(`Argument "${VAR}" is not valid JSON.`);
    }
    const accepted = accept?.(value);
    if (accepted !== undefined) return accepted;
    const bad = unstorableStringPath(value);
    if (bad) {
      const what = bad.reason === 'nul' ? 'null bytes' : 'unpaired surrogates';
      return new Invalid(`${VAR}${pathText(bad.path)} must not contain ${what}`);
    }
    const r = schema.safeParse(value, { errorMap: jsonErrorMap });
    if (r.success) return r.data as z.output<T>;
    const issue = r.error.issues[0]!;
    return new Invalid(issue.message.replaceAll(AT, VAR + pathText(issue.path)));
  };
}

/** `value` as an array of safe integers (what j.int() takes), or undefined when it is not one. */
function safeIntegers(value: unknown): number[] | undefined {
  if (!Array.isArray(value)) return undefined;
  for (const v of value) if (!Number.isSafeInteger(v)) return undefined;
  return value as number[];
}

/**
 * Where a decoded JSON value holds a string (or key) that Postgres cannot store: one with a NUL
 * character, or with a lone surrogate (`"\ud800"` is valid JSON, but not a Unicode string, and
 * the database's json type refuses it); null when there is none. Iterative: JSON.parse accepts
 * nesting deeper than the call stack allows.
 */
function unstorableStringPath(value: unknown): { path: Array<string | number>; reason: 'nul' | 'surrogate' } | null {
  const reason = (s: string) => (s.includes('\u0000') ? 'nul' : hasLoneSurrogate(s) ? 'surrogate' : null);
  interface Step { readonly v: unknown; readonly key: string | number | null; readonly parent: Step | null }
  const pathOf = (s: Step, last?: string): Array<string | number> => {
    const out: Array<string | number> = last === undefined ? [] : [last];
    for (let at: Step | null = s; at && at.key !== null; at = at.parent) out.unshift(at.key);
    return out;
  };
  const stack: Step[] = [{ v: value, key: null, parent: null }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const v = top.v;
    if (typeof v === 'string') {
      const r = reason(v);
      if (r) return { path: pathOf(top), reason: r };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], key: i, parent: top });
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v).reverse()) {
        const r = reason(k);
        if (r) return { path: pathOf(top, k), reason: r };
        stack.push({ v: x, key: k, parent: top });
      }
    }
  }
  return null;
}

function jsonSchemaOf(schema: ZodTypeAny): Record<string, unknown> {
  const { $schema: _drop, ...rest } = zodToJsonSchema(schema, { target: 'openApi3', $refStrategy: 'none' }) as Record<string, unknown>;
  return rest;
}

/** Schemas for values inside JSON parameters; messages may use `{at}` for their location. */
export const j = {
  /** A safe integer, as p.int() takes at the top level (1e20 is an integer to JSON, not to Postgres). */
  int: () =>
    z
      .number({ invalid_type_error: `${AT} is not an integer` })
      .int({ message: `${AT} is not an integer` })
      .safe({ message: `${AT} is not an integer` }),
  /** Group-setting value (convention 8): a group id or {direct_members, direct_subgroups}. */
  get groupSetting() {
    return z.union([
      j.int(),
      z.object({ direct_members: z.array(j.int()), direct_subgroups: z.array(j.int()) }).strict(),
    ]);
  },
};

export type ParamShape = z.ZodRawShape;

/** What a parameter that was not sent becomes, as its optional/default wrappers say. */
type Absent = { readonly kind: 'omitted' } | { readonly kind: 'missing' } | { readonly kind: 'default'; readonly raw: string };
const OMITTED: Absent = { kind: 'omitted' };
const MISSING: Absent = { kind: 'missing' };

interface Field {
  readonly name: string;
  readonly check: Check<unknown>;
  readonly absent: Absent;
}

/**
 * An endpoint schema as a list of checks, or null when some parameter is more than a codec behind
 * optional/default wrappers (a refine, a transform…): zod then runs the schema. Same result as
 * zod, without its per-field contexts and result objects on every request.
 */
function compileSchema(schema: z.ZodObject<ParamShape>): readonly Field[] | null {
  if (schema._def.unknownKeys !== 'strip' || !(schema._def.catchall instanceof z.ZodNever)) return null;
  const fields: Field[] = [];
  for (const [name, param] of Object.entries(schema.shape)) {
    // Outside in, the first wrapper decides what an absent value becomes: an optional one leaves
    // it out, a default one checks the default instead.
    let absent: Absent | null = null;
    let s: ZodTypeAny = param;
    for (;;) {
      if (s instanceof z.ZodOptional) {
        absent ??= OMITTED;
        s = s.unwrap();
      } else if (s instanceof z.ZodDefault) {
        const raw: unknown = s._def.defaultValue();
        if (typeof raw !== 'string') return null;
        absent ??= { kind: 'default', raw };
        s = s.removeDefault();
      } else break;
    }
    const check = checks.get(s);
    if (!check) return null;
    fields.push({ name, check, absent: absent ?? MISSING });
  }
  return fields;
}

const compiled = new WeakMap<z.ZodObject<ParamShape>, readonly Field[] | null>();
const NONE_IGNORED: readonly string[] = Object.freeze([]);

/**
 * Validate raw parameters against an endpoint's schema. Returns the parsed values and the names
 * the endpoint does not take (`ignored_parameters_unsupported`).
 */
export function validateParams<S extends z.ZodObject<ParamShape>>(
  schema: S,
  input: Readonly<Record<string, string>>,
): { values: z.output<S>; ignored: readonly string[] } {
  const shape = schema.shape;
  let ignored: string[] | null = null;
  for (const k in input) if (!(k in shape)) (ignored ??= []).push(k);
  let fields = compiled.get(schema);
  if (fields === undefined) compiled.set(schema, (fields = compileSchema(schema)));
  if (fields === null) return { values: validateParamsWithZod(schema, input), ignored: ignored ?? NONE_IGNORED };
  const values: Record<string, unknown> = {};
  for (const f of fields) {
    let s = input[f.name];
    if (s === undefined) {
      if (f.absent.kind === 'omitted') continue;
      if (f.absent.kind === 'missing') throw errors.missingArgument(f.name);
      s = f.absent.raw;
    }
    const v = f.check(s);
    if (v instanceof Invalid) throw errors.invalidParameter(v.message.replaceAll(VAR, f.name));
    values[f.name] = v;
  }
  return { values: values as z.output<S>, ignored: ignored ?? NONE_IGNORED };
}

/** The parameters' values as zod parses them: what validateParams must agree with. */
export function validateParamsWithZod<S extends z.ZodObject<ParamShape>>(schema: S, input: Readonly<Record<string, string>>): z.output<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  throw toApiError(r.error.issues[0]!);
}

function toApiError(issue: z.ZodIssue): ApiError {
  const name = String(issue.path[0] ?? 'argument');
  if (issue.code === 'invalid_type' && issue.received === 'undefined') return errors.missingArgument(name);
  if (issue.code === 'custom' && issue.message) return errors.invalidParameter(issue.message.replaceAll(VAR, name));
  if (issue.code === 'invalid_type') return errors.invalidParameter(`${name} is not ${TYPE_NAMES[issue.expected] ?? 'valid'}`);
  return errors.invalidParameter(issue.message.includes(VAR) ? issue.message.replaceAll(VAR, name) : `Invalid ${name}`);
}
