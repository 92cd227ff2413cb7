// Integer arrays read from and written to the database: the split fast path of
// src/store/int-arrays.ts against pg's own parser, pg's writing of array parameters (joined for
// integers, patches/pg+8.23.1.patch), and the real types through the pool.
import fc from 'fast-check';
import pg from 'pg';
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { parseIntArray } from '../../src/store/int-arrays.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';

const test = suite('integer arrays');

/** How pg writes a parameter (its `utils`, which its types do not declare). */
const prepare = (pg as unknown as { utils: { prepareValue(v: unknown): unknown } }).utils.prepareValue;
let db: TestDatabase;

test.before(async () => {
  db = await openTestDatabase();
});
test.after(() => db.close());

test('one-dimensional arrays read as pg reads them, as numbers', () => {
  const general = (pg.types.getTypeParser as (oid: number, format: 'text') => (text: string) => Array<string | null>)(1016, 'text');
  const element = fc.oneof(
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 4, arbitrary: fc.integer({ min: -100, max: 100 }) },
    { weight: 3, arbitrary: fc.integer() },
    { weight: 2, arbitrary: fc.maxSafeInteger() },
  );
  fc.assert(
    fc.property(fc.array(element, { maxLength: 12 }), (values) => {
      const text = `{${values.map((v) => (v === null ? 'NULL' : String(v))).join(',')}}`;
      assert.equal(parseIntArray(text), values, text);
      assert.equal(parseIntArray(text), general(text).map((v) => (v === null ? null : Number(v))), text);
    }),
    { numRuns: 2000 },
  );
});

test('nested arrays and explicit bounds go to the general parser', () => {
  assert.equal(parseIntArray('{{1,2},{3,NULL}}'), [
    [1, 2],
    [3, null],
  ]);
  assert.equal(parseIntArray('[0:2]={5,6,-7}'), [5, 6, -7]);
});

test('int4[] and int8[] columns come back as arrays of numbers', async () => {
  const row = await db.pool.one(
    sql.type(z.object({ a: z.array(z.number().nullable()), b: z.array(z.number()), c: z.array(z.number()), d: z.array(z.array(z.number())) }))`
      SELECT ARRAY[1, -2, NULL, 2147483647]::int4[] AS a, '{}'::int8[] AS b, ARRAY[9007199254740991, -3]::int8[] AS c,
             ARRAY[[1, 2], [3, 4]]::int4[] AS d`,
  );
  assert.equal(row, { a: [1, -2, null, 2147483647], b: [], c: [9007199254740991, -3], d: [[1, 2], [3, 4]] });
});

test('integer array parameters are written joined (patches/pg), and Postgres reads back the same int4[] and int8[]', async () => {
  assert.is(prepare([1, -2, 30]), '{1,-2,30}', 'joined, not quoted an element at a time');
  assert.is(prepare([]), '{}');
  const int4 = fc.array(fc.integer(), { maxLength: 30 });
  const int8 = fc.array(fc.maxSafeInteger(), { maxLength: 30 });
  const samples = [...fc.sample(fc.tuple(int4, int8), { numRuns: 40, seed: 7 }), [[], []] as [number[], number[]]];
  for (const [a, b] of samples) {
    const row = await db.pool.one(
      sql.type(z.object({ a: z.array(z.number()), b: z.array(z.number()) }))`SELECT ${sql.array(a, 'int4')} AS a, ${sql.array(b, 'int8')} AS b`,
    );
    assert.equal(row, { a, b });
  }
  const many = Array.from({ length: 100_000 }, (_, i) => i * 3 + 1);
  const big = await db.pool.one(
    sql.type(z.object({ n: z.number(), last: z.number() }))`SELECT cardinality(x) AS n, x[100000] AS last FROM (SELECT ${sql.array(many, 'int4')} AS x) t`,
  );
  assert.equal(big, { n: 100_000, last: 299_998 });
});

test('any other array parameter is still written an element at a time, quoted and escaped', async () => {
  assert.is(prepare([1.5, 2]), '{"1.5","2"}');
  assert.is(prepare([1, null]), '{"1",NULL}');
  assert.is(prepare([2 ** 53, 1]), `{"${2 ** 53}","1"}`, 'beyond the safe integers');
  const texts = ['a"b', 'back\\slash', '1,2', '{}', 'NULL', ''];
  const row = await db.pool.one(sql.type(z.object({ t: z.array(z.string()) }))`SELECT ${sql.array(texts, 'text')} AS t`);
  assert.equal(row.t, texts);
});

test.run();
