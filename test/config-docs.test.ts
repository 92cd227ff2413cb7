// Configuration drift: README's configuration table and the environment schema of src/config.ts
// name the same variables with the same defaults, and nothing else in src reads the environment;
// npm start runs the server with the node options the tests and benchmarks use.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { envSchema } from '../src/config.js';
import { SERVER_ENV, SERVER_NODE_OPTIONS } from './helpers/process.js';

// Compiled to dist/test/: the repository root is two levels up.
const root = fileURLToPath(new URL('../../', import.meta.url));

interface Row {
  readonly name: string;
  readonly dflt: string;
  readonly meaning: string;
}

/** The rows of the table under `## Configuration` (first column a `VARIABLE`). */
function readmeConfigTable(readme: string): Row[] {
  const start = readme.indexOf('\n## Configuration\n');
  assert.ok(start >= 0, 'README has a "## Configuration" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const rows: Row[] = [];
  for (const line of section.split('\n')) {
    const m = /^\|\s*`([A-Z0-9_]+)`\s*\|([^|]*)\|(.*)\|\s*$/.exec(line);
    if (!m) continue;
    rows.push({ name: m[1]!, dflt: m[2]!.trim().replace(/^`(.*)`$/, '$1'), meaning: m[3]!.trim() });
  }
  return rows;
}

/** What the schema says about a variable's default: a value, or none (optional). */
function schemaDefault(schema: z.ZodTypeAny): { kind: 'value'; value: string } | { kind: 'none' } {
  if (schema instanceof z.ZodDefault) return { kind: 'value', value: String(schema._def.defaultValue()) };
  if (schema instanceof z.ZodOptional) return { kind: 'none' };
  throw new Error('every variable has a default or is optional');
}

const rows = readmeConfigTable(readFileSync(join(root, 'README.md'), 'utf8'));
const shape = envSchema.shape as Record<string, z.ZodTypeAny>;
const documented = new Map(rows.map((r) => [r.name, r]));

const t = suite('configuration drift');

t('the README table has one row per variable and a meaning for each', () => {
  assert.ok(rows.length > 10, `found ${rows.length} rows`);
  assert.is(documented.size, rows.length, 'no variable is documented twice');
  for (const r of rows) assert.ok(r.meaning.length > 0, `${r.name} has a meaning`);
});

t('every variable of src/config.ts is in the README, and every README variable in src/config.ts', () => {
  const inSchema = Object.keys(shape).sort();
  const inReadme = [...documented.keys()].sort();
  assert.equal(inSchema.filter((n) => !documented.has(n)), [], 'variables missing from the README');
  assert.equal(inReadme.filter((n) => !(n in shape)), [], 'README variables that src/config.ts does not read');
});

t('defaults agree', () => {
  const wrong: string[] = [];
  for (const [name, schema] of Object.entries(shape)) {
    const row = documented.get(name);
    if (!row) continue; // reported above
    const d = schemaDefault(schema);
    if (d.kind === 'value') {
      if (row.dflt !== d.value) wrong.push(`${name}: README ${row.dflt}, src/config.ts ${d.value}`);
      continue;
    }
    // No default in the schema: the README says `unset`, or derives it from other variables
    // (`http://HOST:PORT`, `DATA_DIR/uploads`).
    const refs = row.dflt.match(/[A-Z][A-Z0-9_]{2,}/g) ?? [];
    if (row.dflt !== 'unset' && refs.length === 0) wrong.push(`${name}: README ${row.dflt}, src/config.ts none (say "unset")`);
    for (const ref of refs) if (!(ref in shape)) wrong.push(`${name}: README default refers to unknown ${ref}`);
  }
  assert.equal(wrong, []);
});

t('the defaults the README states are what parseConfig applies', () => {
  // A documented default parses (catches a README value the schema would reject).
  for (const [name, schema] of Object.entries(shape)) {
    const row = documented.get(name);
    if (!row || schemaDefault(schema).kind !== 'value') continue;
    assert.ok(schema.safeParse(row.dflt).success, `${name}=${row.dflt} is valid`);
  }
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

t('no other source file reads a variable of its own from the environment', () => {
  const stray: string[] = [];
  for (const file of sourceFiles(join(root, 'src'))) {
    if (file.endsWith(join('src', 'config.ts'))) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(/process\.env\.([A-Z0-9_]+)/g)) {
      if (!(m[1]! in shape)) stray.push(`${file.slice(root.length)}: ${m[1]}`);
    }
  }
  assert.equal(stray, []);
});

t('the drift checks fail on drift', () => {
  const readme = '# x\n\n## Configuration\n\n| Variable | Default | Meaning |\n|---|---|---|\n| `PORT` | `80` | Port. |\n\n## Next\n';
  const parsed = readmeConfigTable(readme);
  assert.equal(parsed, [{ name: 'PORT', dflt: '80', meaning: 'Port.' }]);
  const port = schemaDefault(shape.PORT!);
  assert.equal(port, { kind: 'value', value: '9991' });
  assert.is.not(parsed[0]!.dflt, (port as { value: string }).value);
});

t('npm start gives the server the node options and environment the tests and benchmarks give it', () => {
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
  const m = /&& ((?:\w+=\S* )*)node((?: --[\w=-]+)*) dist\/parley\.mjs$/.exec(start);
  assert.ok(m, `the start script runs node on dist/parley.mjs: ${start}`);
  const assigned = m[1]!.trim().split(' ').filter(Boolean).map((a) => a.split('=') as [string, string]);
  assert.equal(Object.fromEntries(assigned), { ...SERVER_ENV });
  assert.equal(m[2]!.trim().split(' ').filter(Boolean), [...SERVER_NODE_OPTIONS]);
});

t.run();
