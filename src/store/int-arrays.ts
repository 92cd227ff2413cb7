// Integer arrays from Postgres (int4[], int8[]) as numbers. Loading an organization reads each
// system group's members as one array (10,000 members: 10,000 elements); pg's general array
// parser, which walks the text a character at a time, took 36 ms of a 10,000-user start. A
// one-dimensional array of integers has no quotes, escapes or nesting, so it is split instead;
// anything else (nested arrays, explicit bounds such as "[0:1]={1,2}") goes to pg's parser.
import pg from 'pg';

const INT8_ARRAY_OID = 1016;
// pg's int8[] parser reads every element as a string; it parses int4[] text just the same.
const general = (pg.types.getTypeParser as (oid: number, format: 'text') => (text: string) => unknown[])(INT8_ARRAY_OID, 'text');

type IntArray = Array<number | null | IntArray>;

const element = (v: unknown): number | null | IntArray => (v === null ? null : Array.isArray(v) ? v.map(element) : Number(v));

/** Parse an int4[] or int8[] in Postgres's text form; NULL elements are null. */
export function parseIntArray(text: string): IntArray {
  if (text.charCodeAt(0) !== 0x7b /* { */ || text.indexOf('{', 1) !== -1) return general(text).map(element);
  if (text === '{}') return [];
  const parts = text.slice(1, -1).split(',');
  const out: Array<number | null> = new Array(parts.length);
  for (let i = 0; i < parts.length; i++) out[i] = parts[i] === 'NULL' ? null : Number(parts[i]);
  return out;
}
