// Values for the fuzzer (test/http/fuzz.test.ts): plausible ones drawn from the parameter's
// JSON schema and from real objects of the organization, and malformed ones — wrong types, huge
// values, invalid JSON and UTF-8, hostile Markdown, path tricks.
import fc from 'fast-check';

/** A parameter value as it goes on the wire. */
export type Piece =
  | { readonly text: string }
  /** Raw bytes (invalid UTF-8 among them), percent-encoded byte by byte in forms. */
  | { readonly bytes: Buffer }
  /** Already encoded text put in the URL or form as it is (`%ZZ`, `%2F`). */
  | { readonly encoded: string };

export type Schema = Readonly<Record<string, unknown>>;

/** Ids and names of real objects: filled before the run and from every successful response. */
export class Pools {
  readonly ints = new Set<number>();
  readonly strings = new Set<string>();
  add(v: unknown, key = ''): void {
    if (typeof v === 'number' && Number.isSafeInteger(v) && /(^|_)ids?$/.test(key)) this.ints.add(v);
    else if (typeof v === 'string' && v.length > 0 && v.length < 100 && /(^|_)(id|name|email|topic|fragment|domain|url|uri)$/.test(key)) {
      this.strings.add(v);
    } else if (Array.isArray(v)) for (const x of v.slice(0, 20)) this.add(x, key);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v).slice(0, 50)) this.add(x, k);
  }
  int(): fc.Arbitrary<number> {
    const ints = [...this.ints];
    return ints.length > 0 ? fc.constantFrom(...ints) : fc.nat(50);
  }
  string(): fc.Arbitrary<string> {
    const strings = [...this.strings];
    return strings.length > 0 ? fc.constantFrom(...strings) : fc.constant('general');
  }
}

const deep = (open: string, close: string, n: number) => open.repeat(n) + close.repeat(n);

export const HOSTILE_MARKDOWN: readonly string[] = [
  '>'.repeat(3000) + ' quote',
  '*'.repeat(5000) + 'x' + '_'.repeat(5000),
  deep('[', ']', 2000) + '(x)',
  '[x](' + '('.repeat(3000) + ')',
  '`'.repeat(3000) + 'x' + '`'.repeat(2999),
  '```\n'.repeat(1000),
  '~~~quote\n'.repeat(500),
  '```spoiler ' + 'x'.repeat(200) + '\n' + '```spoiler\n'.repeat(300),
  '```math\n\\begin{' + '{'.repeat(2000) + '\n```',
  '$$' + '\\'.repeat(3000) + '$$',
  Array.from({ length: 1500 }, (_, i) => ' '.repeat(i % 40) + '- item').join('\n'),
  Array.from({ length: 500 }, (_, i) => `${i}. ${'> '.repeat(i % 30)}x`).join('\n'),
  '@**' + '*'.repeat(3000),
  '@**all** @*everyone* @**channel** @**topic** @_**Olivia Owner** @**Olivia Owner|1** @**|99999999999**',
  '@*' + 'a'.repeat(2000) + '*',
  '#**' + 'general>'.repeat(500) + '**',
  '#**general>topic**@**Mel Member** #**nonexistent** #**general** #**a|b>c**',
  ':' + 'smile:'.repeat(2000),
  ':' + 'a'.repeat(5000) + ':',
  '<time:' + 'x'.repeat(500) + '> <time:2024-13-45T99:99:99Z> <time:-1>',
  '<script>alert(1)</script><img src=x onerror=alert(1)><iframe src="javascript:alert(1)">',
  '[click](javascript:alert(1)) [x](data:text/html;base64,PHNjcmlwdD4=) [y](vbscript:msgbox) ![z](file:///etc/passwd)',
  'https://' + 'a.'.repeat(3000) + 'com',
  'http://[::1]:99999/%ZZ?' + '&a='.repeat(1000),
  '/me ' + '/me '.repeat(500),
  '/poll ' + 'x\n'.repeat(1000),
  '\u202e\u200b\u200d\ufeff' + 'é'.repeat(100) + 'e\u0301'.repeat(5000),
  '\u0000\u0001\u0007\u001b[31m\u007f',
  '| a | b |\n|---|---|\n' + '| x | y |\n'.repeat(2000),
  '<' + 'a'.repeat(100) + ' ' + 'b="c" '.repeat(2000) + '>',
  '\\'.repeat(10000),
  '&#' + '9'.repeat(100) + '; &#x110000; &#0; &amp;&lt;&gt;',
  '![](' + 'x'.repeat(10000) + ')',
  '* '.repeat(3000) + 'x',
  '#'.repeat(100) + ' heading\n' + '='.repeat(5000),
];

/** Text that is awkward for any handler: hostile Markdown, control characters, odd Unicode. */
export const hostileText = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(...HOSTILE_MARKDOWN),
    fc.array(fc.constantFrom(...HOSTILE_MARKDOWN.map((s) => s.slice(0, 200))), { minLength: 2, maxLength: 5 }).map((a) => a.join('\n')),
  );

const WRONG_SCALARS: readonly string[] = [
  '', ' ', '\t', 'abc', '-1', '0', '-0', '1.5', '1e3', '1e309', '-1e309', 'NaN', 'Infinity', '0x10', '+1', '007', ' 1 ',
  '2147483647', '2147483648', '-2147483649', '4294967296', '9007199254740991', '9007199254740993', '99999999999999999999',
  '9'.repeat(400), 'null', 'undefined', 'true', 'false', 'True', 'yes', '[]', '{}', '[null]', '[1,', '{"a":', "['x']", '"x"',
  '[1.5]', '["1"]', '[-1]', '[99999999999999999999]', '[[[]]]', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":1}}',
  '\u0000', 'a\u0000b', '\ud83d\ude00', '\uffff', '\u2028', 'é', '%', '..', '../../etc/passwd', '/', 'me', '*', "'; DROP TABLE users; --",
  '$(reboot)', '{{7*7}}', '${7*7}', 'x'.repeat(1000),
];

/** Invalid UTF-8 byte sequences (overlong, surrogates, truncated, stray continuation bytes). */
const BAD_BYTES: readonly number[][] = [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe2, 0x82], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xf4, 0x90, 0x80, 0x80]];

const BAD_ENCODINGS: readonly string[] = ['%', '%Z', '%ZZ', '%E0%A4', '%C3%28', '%ED%A0%80', '%FF', '%00', 'a%2', '%%41'];

const huge = (): fc.Arbitrary<string> =>
  fc.constantFrom(
    'x'.repeat(100_000),
    '9'.repeat(20_000),
    JSON.stringify(Array.from({ length: 20_000 }, (_, i) => i)),
    JSON.stringify(Array.from({ length: 2000 }, () => 'x'.repeat(50))),
    deep('[', ']', 5000),
    deep('{"a":', '}', 3000).replace(/}$/, '1}'),
    JSON.stringify({ a: 'b'.repeat(50_000) }),
    'é'.repeat(30_000),
    '😀'.repeat(20_000),
  );

/** Strings in general: real names, short random text, hostile text. */
export function textArb(pools: Pools): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: pools.string() },
    { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
    { weight: 1, arbitrary: hostileText() },
  );
}

function intArb(schema: Schema, pools: Pools): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -5;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 2 ** 31 - 1;
  return fc.oneof({ weight: 4, arbitrary: pools.int() }, { weight: 2, arbitrary: fc.integer({ min: Math.max(min, -5), max: Math.min(max, 100) }) }, { weight: 1, arbitrary: fc.constantFrom(min, max) });
}

/** A value that fits the JSON schema (or nearly: the pools hold ids of every kind). */
export function fromSchema(schema: Schema, pools: Pools, depth = 0): fc.Arbitrary<unknown> {
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((s) => fromSchema(s, pools, depth)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const type = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  const arbs = type.map((t): fc.Arbitrary<unknown> => {
    switch (t) {
      case 'integer':
        return intArb(schema, pools);
      case 'number':
        return fc.oneof(intArb(schema, pools), fc.double({ noNaN: true, noDefaultInfinity: true }));
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'string':
        return textArb(pools);
      case 'array':
        if (depth > 3) return fc.constant([]);
        return fc.array(fromSchema((schema.items as Schema | undefined) ?? {}, pools, depth + 1), { maxLength: 4 });
      case 'object': {
        if (depth > 3) return fc.constant({});
        const props = (schema.properties ?? {}) as Record<string, Schema>;
        const required = new Set((schema.required ?? []) as string[]);
        const keys = Object.keys(props);
        if (keys.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
        return fc.record(Object.fromEntries(keys.map((k) => [k, fromSchema(props[k]!, pools, depth + 1)])), {
          requiredKeys: keys.filter((k) => required.has(k)),
        });
      }
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  });
  return arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs);
}

/** A plausible value for a parameter, as the client libraries encode it. */
export function validPiece(schema: Schema, json: boolean, pools: Pools): fc.Arbitrary<Piece> {
  if (json) return fromSchema(schema, pools).map((v) => ({ text: JSON.stringify(v) ?? 'null' }));
  return fromSchema(schema, pools).map((v) => ({ text: typeof v === 'string' ? v : JSON.stringify(v) ?? '' }));
}

/** A malformed value: wrong type, invalid JSON or UTF-8 or encoding, huge, hostile. */
export function badPiece(): fc.Arbitrary<Piece> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...WRONG_SCALARS).map((text) => ({ text })) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => ({ text: JSON.stringify(v) })) },
    { weight: 2, arbitrary: hostileText().map((text) => ({ text })) },
    { weight: 1, arbitrary: huge().map((text) => ({ text })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.string({ maxLength: 5 }), fc.constantFrom(...BAD_BYTES), fc.string({ maxLength: 5 }))
        .map(([a, b, c]) => ({ bytes: Buffer.concat([Buffer.from(a), Buffer.from(b), Buffer.from(c)]) })),
    },
    { weight: 1, arbitrary: fc.constantFrom(...BAD_ENCODINGS).map((encoded) => ({ encoded })) },
  );
}

/** A path segment: a real id or name, or a trick (`..`, encoded slashes, huge and negative ids). */
export function pathSegment(schema: Schema, pools: Pools): fc.Arbitrary<Piece> {
  const tricks = [
    '..', '.', '%2E%2E', '%2e%2e%2f%2e%2e%2fsecret.key', '..%2F..%2F..%2Fetc%2Fpasswd', 'a%2Fb', '%2F', '%5C..%5C', '%00', 'x%00.png',
    '-1', '0', '1.5', '1e3', ' 1', '%201', '2147483648', '9007199254740993', '99999999999999999999', '9'.repeat(300), 'abc', 'me',
    'null', '%ZZ', '%C3%28', '%ED%A0%80', '%F0%9F%98%80', 'a'.repeat(5000), '%7B%7D', '*', '~', 'CON', 'x.png', '1-medium.png',
  ];
  return fc.oneof(
    { weight: 5, arbitrary: validPiece(schema, false, pools).map((p) => ('text' in p ? { encoded: encodeURIComponent(p.text) } : p)) },
    { weight: 3, arbitrary: fc.constantFrom(...tricks).map((encoded) => ({ encoded })) },
  );
}

const UNRESERVED = /[A-Za-z0-9\-_.~]/;

/** Percent-encode a value for a query string or form body. */
export function percentEncode(p: Piece): string {
  if ('encoded' in p) return p.encoded;
  const bytes = 'bytes' in p ? p.bytes : Buffer.from(p.text, 'utf8');
  let out = '';
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && UNRESERVED.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The bytes of a value in a multipart part. */
export function pieceBytes(p: Piece): Buffer {
  return 'bytes' in p ? p.bytes : Buffer.from('text' in p ? p.text : p.encoded, 'utf8');
}

/** A short description for failure reports (huge values shortened). */
export function describePiece(p: Piece): string {
  const s = 'text' in p ? JSON.stringify(p.text) : 'bytes' in p ? `bytes(${p.bytes.toString('hex').slice(0, 40)})` : `encoded(${p.encoded})`;
  return s.length > 120 ? `${s.slice(0, 100)}…(${s.length} chars)` : s;
}
