// Integer arrays read from the database (src/store/int-arrays.ts): the split fast path against
// pg's own parser, and the real types through the pool.
import fc from 'fast-check';
import pg from 'pg';
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { parseIntArray } from '../../src/store/int-arrays.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';

const test = suite('integer arrays');
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

test.run();
