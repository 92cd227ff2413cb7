import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { isApiError } from '../../src/domain/errors.js';
import type { Endpoint } from '../../src/http/endpoint.js';
import { j, p, paramDoc, validateParams, validateParamsWithZod } from '../../src/http/params.js';
import { apiRoutes, siteRoutes } from '../../src/http/routes.js';
import { catchApiError } from '../helpers/assert.js';
import { badPiece, Pools, validPiece, type Piece } from '../helpers/fuzz-values.js';

const schema = z.object({
  name: p.string({ max: 5 }),
  count: p.int().optional(),
  flag: p.bool().default('false'),
  kind: p.enum(['a', 'b']).optional(),
  ids: p.intList().optional(),
  setting: p.json(j.groupSetting).optional(),
  opts: p.json(z.object({ on: z.boolean(), label: z.string().max(3) })).optional(),
});

const codecs = suite('parameter codecs');

codecs('decodes each type from text', () => {
  const { values, ignored } = validateParams(schema, {
    name: 'abc',
    count: '42',
    flag: 'true',
    kind: 'b',
    ids: '[1,2,3]',
    setting: '{"direct_members":[1],"direct_subgroups":[]}',
  });
  assert.equal(values, {
    name: 'abc',
    count: 42,
    flag: true,
    kind: 'b',
    ids: [1, 2, 3],
    setting: { direct_members: [1], direct_subgroups: [] },
  });
  assert.equal(ignored, []);
});

codecs('defaults apply and unknown parameters are reported, not rejected', () => {
  const { values, ignored } = validateParams(schema, { name: 'x', extra: '1', other: '' });
  assert.is(values.flag, false);
  assert.equal(ignored, ['extra', 'other']);
});

codecs('missing required parameter', () => {
  const e = catchApiError(() => validateParams(schema, {}));
  assert.is(e.code, 'REQUEST_VARIABLE_MISSING');
  assert.is(e.message, "Missing 'name' argument");
  assert.equal(e.toJSON(), { result: 'error', msg: "Missing 'name' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'name' });
  assert.is(e.status, 400);
});

const cases: Array<[Record<string, string>, string]> = [
  [{ name: 'x', count: 'twelve' }, 'count is not an integer'],
  [{ name: 'x', count: '1.5' }, 'count is not an integer'],
  [{ name: 'x', count: '99999999999999999999' }, 'count is not an integer'],
  [{ name: 'x', flag: 'yes' }, 'flag is not a boolean'],
  [{ name: 'x', kind: 'c' }, 'Invalid kind'],
  [{ name: 'toolong' }, 'name is too long (limit: 5 characters)'],
  [{ name: 'x', ids: '[1,' }, 'Argument "ids" is not valid JSON.'],
  [{ name: 'x', ids: '{"a":1}' }, 'ids is not a list'],
  [{ name: 'x', ids: '[1,"2"]' }, 'ids[1] is not an integer'],
  [{ name: 'x', ids: '[1,2.5]' }, 'ids[1] is not an integer'],
  [{ name: 'x', ids: '[1,99999999999999999999]' }, 'ids[1] is not an integer'],
  [{ name: 'x', ids: '[-9007199254740993]' }, 'ids[0] is not an integer'],
  [{ name: 'x', setting: '"everyone"' }, 'Invalid setting'],
  [{ name: 'x', opts: '[]' }, 'opts is not a dict'],
  [{ name: 'x', opts: '{"on":"yes","label":"a"}' }, 'opts["on"] is not a boolean'],
  [{ name: 'x', opts: '{"on":true,"label":"abcd"}' }, 'opts["label"] is too long (limit: 3 characters)'],
  // Postgres cannot store NUL: refused at the edge, in text and inside JSON (found by fuzzing).
  [{ name: 'a\u0000' }, 'name must not contain null bytes'],
  [{ name: 'x', opts: '{"on":true,"label":"\\u0000"}' }, 'opts["label"] must not contain null bytes'],
  [{ name: 'x', opts: '{"on\\u0000":true,"label":"a"}' }, 'opts["on\u0000"] must not contain null bytes'],
  // Nor a lone surrogate, which JSON can spell (found by fuzzing: the json column refused it).
  [{ name: 'x', opts: '{"on":true,"label":"\\ud83d"}' }, 'opts["label"] must not contain unpaired surrogates'],
  [{ name: 'x', opts: '{"\\udc00":true}' }, 'opts["\udc00"] must not contain unpaired surrogates'],
];
for (const [input, msg] of cases) {
  codecs(`rejects ${JSON.stringify(input)}`, () => {
    const e = catchApiError(() => validateParams(schema, input));
    assert.is(e.message, msg);
    assert.is(e.code, 'BAD_REQUEST');
    assert.is(e.status, 400);
  });
}

codecs('booleans accept only true/false', () => {
  assert.is(validateParams(schema, { name: 'x', flag: 'false' }).values.flag, false);
  assert.is(catchApiError(() => validateParams(schema, { name: 'x', flag: '1' })).message, 'flag is not a boolean');
});

codecs('JSON nested deeper than the call stack is checked without overflowing (found by fuzzing)', () => {
  const deep = '['.repeat(20_000) + ']'.repeat(20_000);
  assert.is(catchApiError(() => validateParams(schema, { name: 'x', ids: deep })).message, 'ids[0] is not an integer');
});

codecs('a string parameter whose handler refuses NUL itself lets it through', () => {
  const content = z.object({ content: p.string({ nul: 'handler' }) });
  assert.is(validateParams(content, { content: 'a\u0000b' }).values.content, 'a\u0000b');
});

codecs('intList takes what a JSON array of j.int() takes, with the same messages', () => {
  const fast = z.object({ ids: p.intList() });
  const reference = z.object({ ids: p.json(z.array(j.int())) });
  const number = fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.maxSafeNat().map((n) => -n), fc.double(), fc.constant(-0), fc.constant(2 ** 53));
  const value = fc.oneof(number, fc.string(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }), fc.object());
  const text = fc.oneof(
    { weight: 3, arbitrary: fc.array(number).map((a) => JSON.stringify(a)) },
    { weight: 2, arbitrary: fc.array(value).map((a) => JSON.stringify(a)) },
    { weight: 1, arbitrary: fc.json() },
    { weight: 1, arbitrary: fc.string() },
    { weight: 1, arbitrary: fc.array(fc.integer()).map((a) => ` [ ${a.join(' , ')} ] `) },
  );
  fc.assert(
    fc.property(text, (ids) => {
      const ours = outcome(() => validateParams(fast, { ids }));
      const theirs = outcome(() => validateParams(reference, { ids }));
      if (!isDeepStrictEqual(ours, theirs)) assert.unreachable(`${ids}: ${JSON.stringify(ours)} ≠ ${JSON.stringify(theirs)}`);
    }),
    { numRuns: 2000 },
  );
  assert.equal(validateParams(fast, { ids: '[3,-0,9007199254740991]' }).values.ids, [3, -0, 9007199254740991]);
});

codecs.run();

// validateParams runs most schemas as a list of codec checks rather than through zod; zod's
// result is the reference. Every endpoint's schema, with values good, bad and absent.
const compiled = suite('compiled parameter checks');

type Outcome = { ok: unknown } | { error: string };
function outcome(f: () => unknown): Outcome {
  try {
    return { ok: f() };
  } catch (e) {
    if (!isApiError(e)) throw e;
    return { error: `${e.status} ${e.code} ${e.message}` };
  }
}

/**
 * isDeepStrictEqual, except on data nested too deeply for its recursion: the hostile values hold
 * JSON thousands of levels deep, which both validators take. That data is arrays, plain objects
 * and primitives, and is compared with a stack of its own.
 */
function sameOutcome(a: unknown, b: unknown): boolean {
  try {
    return isDeepStrictEqual(a, b);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
  }
  const pairs: Array<[unknown, unknown]> = [[a, b]];
  while (pairs.length > 0) {
    const [x, y] = pairs.pop()!;
    if (typeof x !== 'object' || x === null || typeof y !== 'object' || y === null) {
      if (!Object.is(x, y)) return false;
    } else if (Object.getPrototypeOf(x) !== Object.getPrototypeOf(y)) return false;
    else {
      const kx = Object.keys(x);
      const ky = Object.keys(y);
      if (kx.length !== ky.length) return false;
      for (const k of kx) {
        if (!Object.hasOwn(y, k)) return false;
        pairs.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]]);
      }
    }
  }
  return true;
}

/** An outcome for a failure message (data too deep to print is said so). */
function printable(o: Outcome): string {
  try {
    return JSON.stringify(o);
  } catch {
    return '(nested too deeply to print)';
  }
}

const endpoints = [...Object.entries(apiRoutes), ...Object.entries(siteRoutes)].flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, endpoint]) => ({ name: `${method} ${path}`, schema: (endpoint as Endpoint).params })),
);

compiled('every endpoint schema validates as zod does', () => {
  const pools = new Pools();
  const text = (piece: Piece) => ('text' in piece ? piece.text : 'encoded' in piece ? piece.encoded : piece.bytes.toString('latin1'));
  for (const { name, schema } of endpoints) {
    const params = Object.entries(schema.shape).map(([param, zodType]) => {
      const { doc } = paramDoc(zodType);
      const value = fc.oneof(
        { weight: 3, arbitrary: doc ? validPiece(doc.schema, doc.json, pools).map(text) : fc.string() },
        { weight: 2, arbitrary: badPiece().map(text) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      );
      return fc.tuple(fc.constant(param), value);
    });
    const input = fc
      .tuple(fc.tuple(...params), fc.constantFrom({}, { unknown_param: 'x' }))
      .map(([pairs, extra]) => ({ ...extra, ...Object.fromEntries(pairs.filter(([, v]) => v !== undefined)) }) as Record<string, string>);
    fc.assert(
      fc.property(input, (raw) => {
        const ours = outcome(() => validateParams(schema, raw));
        const zods = outcome(() => ({ values: validateParamsWithZod(schema, raw), ignored: Object.keys(raw).filter((k) => !(k in schema.shape)) }));
        // Not uvu's equal: a decoded JSON value may have a key `constructor` (`{"constructor":{…}}`),
        // which uvu's comparison takes for the object's class.
        if (!sameOutcome(ours, zods)) assert.unreachable(`${name} ${JSON.stringify(raw).slice(0, 300)}: ${printable(ours)} ≠ ${printable(zods)}`);
      }),
      { numRuns: 60 },
    );
  }
});

compiled('outcomes compare however deeply their data nests', () => {
  const nested = (depth: number, leaf: unknown) => {
    let v: unknown = leaf;
    for (let i = 0; i < depth; i++) v = [v];
    return v;
  };
  const deep = (leaf: unknown): Outcome => ({ ok: { values: { field_data: nested(20_000, leaf) }, ignored: [] } });
  assert.ok(sameOutcome(deep(1), deep(1)));
  assert.not.ok(sameOutcome(deep(1), deep(2)));
  assert.not.ok(sameOutcome(deep({ a: 1 }), deep({ a: 1, b: 2 })));
  assert.not.ok(sameOutcome(deep([1]), deep({ 0: 1 })));
  assert.is(printable(deep(1)), '(nested too deeply to print)');
});

compiled('a parameter not sent: a default is checked, an optional one is left out, a required one is missing', () => {
  const s = z.object({ a: p.int().default('7'), b: p.bool().optional(), c: p.string() });
  const { values } = validateParams(s, { c: 'x' });
  assert.equal(values, { a: 7, c: 'x' });
  assert.ok(!('b' in values));
  const e = catchApiError(() => validateParams(s, { a: '1' }));
  assert.is(e.message, 'Missing \'c\' argument');
});

compiled.run();
