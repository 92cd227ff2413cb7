// The patched zod (patches/zod+3.25.76.patch): a schema binds none of its methods and makes its
// Standard Schema object only when read. Parley builds some 3,000 schemas as it loads; bound, they
// were 90,000 functions (about 5 MB of heap, and their construction and collection at every start).
// Methods are called on their schema, which the rest of zod and Parley do.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';

const t = suite('zod, patched');

t('a schema holds its definition and nothing bound', () => {
  for (const schema of [z.string(), z.number().int().min(1), z.object({ a: z.boolean().default(false) }), z.array(z.string()).optional()]) {
    assert.is((schema as unknown as Record<string, unknown>)._def, schema._def);
    // What else a schema holds is its class's state and aliases (a number's min is its gte), not
    // bound copies of its methods.
    const own = Object.entries(schema);
    assert.equal(own.filter(([, v]) => typeof v === 'function' && v.name.startsWith('bound ')), []);
    for (const method of ['parse', 'safeParse', 'optional', 'refine']) assert.not.ok(Object.hasOwn(schema, method), method);
  }
});

t('the methods work as methods, spa included', async () => {
  const schema = z.object({ n: z.number().int(), s: z.string().optional() });
  assert.equal(schema.parse({ n: 1 }), { n: 1 });
  assert.is(schema.safeParse({ n: 1.5 }).success, false);
  assert.equal(await schema.parseAsync({ n: 2, s: 'x' }), { n: 2, s: 'x' });
  assert.equal(await schema.spa({ n: 3 }), { success: true, data: { n: 3 } });
  assert.is(schema.nullable().parse(null), null);
  assert.is(z.string().transform((s) => s.length).pipe(z.number().max(3)).safeParse('abcd').success, false);
  assert.is(z.string().describe('a name').description, 'a name');
  assert.is(z.string().optional().isOptional(), true);
});

t('the Standard Schema object is made when read, kept, and marked async by async checks', async () => {
  const schema = z.string().min(2);
  const standard = schema['~standard'];
  assert.is(schema['~standard'], standard);
  assert.equal(standard.validate('ok'), { value: 'ok' });
  assert.ok('issues' in (standard.validate('x') as object));

  const later = z.string().refine(async (s) => s === 'yes');
  const result = later['~standard'].validate('yes');
  assert.instance(result, Promise);
  assert.equal(await result, { value: 'yes' });
  assert.is((later['~standard'] as { async?: boolean }).async, true);
});

t('the bundle the server runs holds the patched zod', () => {
  const bundle = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'parley.cjs'), 'utf8');
  // The bundle has no comments; each copy of zod in it has the patch's alias instead of the binds.
  assert.ok(/ZodType\d*\.prototype\.spa = ZodType\d*\.prototype\.safeParseAsync;/.test(bundle));
  assert.not.ok(bundle.includes('.safeParse = this.safeParse.bind(this)'));
});

t.run();
