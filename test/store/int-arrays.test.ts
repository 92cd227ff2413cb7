// Integer arrays read from the database (src/store/int-arrays.ts): the split fast path against
// pg's own parser, and the real types through the pool.
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

/** Deterministic pseudo-random numbers (xorshift). */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

test('one-dimensional arrays read as pg reads them, as numbers', () => {
  const general = (pg.types.getTypeParser as (oid: number, format: 'text') => (text: string) => Array<string | null>)(1016, 'text');
  const next = rng(7);
  for (let i = 0; i < 2000; i++) {
    const values = Array.from({ length: Math.floor(next() * 12) }, () => {
      const r = next();
      if (r < 0.1) return null;
      const magnitude = r < 0.5 ? 100 : r < 0.8 ? 2 ** 31 : Number.MAX_SAFE_INTEGER;
      return Math.floor((next() - 0.5) * 2 * magnitude);
    });
    const text = `{${values.map((v) => (v === null ? 'NULL' : String(v))).join(',')}}`;
    assert.equal(parseIntArray(text), values, text);
    assert.equal(parseIntArray(text), general(text).map((v) => (v === null ? null : Number(v))), text);
  }
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
