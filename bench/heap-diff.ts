// What grew between two V8 heap snapshots, by kind of object: the capacity scenario's snapshots at
// N / 3 and N parked (`--heap-snapshots DIR`) give what one more queue and parked poll holds.
//
//   node dist/bench/heap-diff.js A.heapsnapshot B.heapsnapshot [PER] [--top K]
//
// Prints, for the kinds whose total size changed most, the change in count and in bytes, and both
// divided by PER (the number of requests parked in between) when it is given.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Snapshot {
  readonly snapshot: { readonly meta: { readonly node_fields: string[]; readonly node_types: [string[], ...unknown[]] } };
  readonly nodes: number[];
  readonly strings: string[];
}

/** Count and bytes per kind: objects by constructor, functions by name, the rest by V8's type. */
export type Kinds = Map<string, { count: number; bytes: number }>;

/** A snapshot's totals per kind. */
export function kinds(s: Snapshot): Kinds {
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const out: Kinds = new Map();
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + typeAt]!]!;
    const name = s.strings[s.nodes[i + nameAt]!]!;
    const key = kindOf(type, name);
    const k = out.get(key);
    if (k) {
      k.count++;
      k.bytes += s.nodes[i + sizeAt]!;
    } else out.set(key, { count: 1, bytes: s.nodes[i + sizeAt]! });
  }
  return out;
}

function kindOf(type: string, name: string): string {
  switch (type) {
    case 'object':
    case 'native':
      return `${name} (${type})`;
    case 'closure':
      return `${name || '(anonymous)'} (closure)`;
    case 'string':
    case 'concatenated string':
    case 'sliced string':
      return `(${type})`;
    case 'code':
      return '(code)';
    default:
      // hidden, array, number, object shape, …: their names say which (system / Map, (object elements), …)
      return `${name.length > 60 ? name.slice(0, 57) + '...' : name} (${type})`;
  }
}

/** The kinds of `b` against `a`, largest change in bytes first. */
export function diff(a: Kinds, b: Kinds): { kind: string; count: number; bytes: number }[] {
  const rows = new Map<string, { kind: string; count: number; bytes: number }>();
  for (const [kind, v] of b) rows.set(kind, { kind, count: v.count, bytes: v.bytes });
  for (const [kind, v] of a) {
    const r = rows.get(kind) ?? { kind, count: 0, bytes: 0 };
    r.count -= v.count;
    r.bytes -= v.bytes;
    rows.set(kind, r);
  }
  return [...rows.values()].filter((r) => r.count !== 0 || r.bytes !== 0).sort((x, y) => Math.abs(y.bytes) - Math.abs(x.bytes));
}

function main(): void {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { top: { type: 'string' } } });
  const [fileA, fileB, perText] = positionals;
  if (!fileA || !fileB) {
    process.stderr.write('usage: node dist/bench/heap-diff.js A.heapsnapshot B.heapsnapshot [PER] [--top K]\n');
    process.exitCode = 2;
    return;
  }
  const per = perText === undefined ? 1 : Number(perText);
  const top = Number(values.top ?? 40);
  if (!(per > 0) || !Number.isInteger(top) || top < 1) {
    process.stderr.write('PER must be a positive number and --top a positive integer\n');
    process.exitCode = 2;
    return;
  }
  const load = (f: string) => kinds(JSON.parse(readFileSync(f, 'utf8')) as Snapshot);
  const rows = diff(load(fileA), load(fileB));
  const total = rows.reduce((t, r) => t + r.bytes, 0);
  const num = (v: number) => (per === 1 ? v.toLocaleString('en-US') : (v / per).toFixed(1));
  process.stdout.write(`${'kind'.padEnd(64)} ${'count'.padStart(12)} ${'bytes'.padStart(14)}${per === 1 ? '' : `   (each ÷ ${per})`}\n`);
  for (const r of rows.slice(0, top)) process.stdout.write(`${r.kind.slice(0, 64).padEnd(64)} ${num(r.count).padStart(12)} ${num(r.bytes).padStart(14)}\n`);
  process.stdout.write(`${'all kinds'.padEnd(64)} ${''.padStart(12)} ${num(total).padStart(14)}\n`);
}

if (process.argv[1]?.endsWith('heap-diff.js')) main();
