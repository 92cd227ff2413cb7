// RFC 6570 URI templates, as linkifiers use them (`https://example.com/issues/{id}`). Values
// are strings only (linkifier groups), so list and map values, and with them the explode
// modifier's effect, do not arise; `*` is accepted and changes nothing for a string. Every
// operator of level 3 and the prefix modifier of level 4 are supported.

interface Operator {
  readonly first: string;
  readonly separator: string;
  readonly named: boolean;
  /** What follows a named variable whose value is empty. */
  readonly ifEmpty: string;
  readonly allowReserved: boolean;
}

const OPERATORS: Readonly<Record<string, Operator>> = {
  '': { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: false },
  '+': { first: '', separator: ',', named: false, ifEmpty: '', allowReserved: true },
  '#': { first: '#', separator: ',', named: false, ifEmpty: '', allowReserved: true },
  '.': { first: '.', separator: '.', named: false, ifEmpty: '', allowReserved: false },
  '/': { first: '/', separator: '/', named: false, ifEmpty: '', allowReserved: false },
  ';': { first: ';', separator: ';', named: true, ifEmpty: '', allowReserved: false },
  '?': { first: '?', separator: '&', named: true, ifEmpty: '=', allowReserved: false },
  '&': { first: '&', separator: '&', named: true, ifEmpty: '=', allowReserved: false },
};

// Operators the RFC reserves for future extensions.
const RESERVED_OPERATORS = new Set(['=', ',', '!', '@', '|']);
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;
// Literal characters the RFC forbids outside expressions ('%' is checked separately).
const BAD_LITERAL = /[\u0000-\u0020\u007f"'<>\\^`{|}]/;
const MAX_PREFIX = 9999;

interface VarSpec {
  readonly name: string;
  readonly prefix: number | null;
}

type Part = string | { readonly operator: Operator; readonly vars: readonly VarSpec[] };

function parseExpression(body: string): { operator: Operator; vars: VarSpec[] } | string {
  if (body === '') return 'empty expression';
  const first = body[0]!;
  if (RESERVED_OPERATORS.has(first)) return `reserved operator '${first}'`;
  const op = Object.hasOwn(OPERATORS, first) ? first : '';
  const vars: VarSpec[] = [];
  for (const spec of body.slice(op.length).split(',')) {
    const m = /^([^:*]*)(?::(\d+)|(\*))?$/.exec(spec);
    if (!m || !VARNAME.test(m[1]!)) return `invalid variable '${spec}'`;
    const prefix = m[2] === undefined ? null : Number(m[2]);
    if (prefix !== null && (prefix < 1 || prefix > MAX_PREFIX || m[2]!.length > 4)) {
      return `invalid prefix length in '${spec}'`;
    }
    vars.push({ name: m[1]!, prefix });
  }
  return { operator: OPERATORS[op]!, vars };
}

function checkLiteral(text: string): string | null {
  if (BAD_LITERAL.test(text)) return 'invalid character outside an expression';
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) return "'%' not followed by two hex digits";
  return null;
}

function parseTemplate(template: string): Part[] | string {
  const parts: Part[] = [];
  let pos = 0;
  while (pos < template.length) {
    const open = template.indexOf('{', pos);
    const literalEnd = open === -1 ? template.length : open;
    const literal = template.slice(pos, literalEnd);
    if (literal.includes('}')) return "unmatched '}'";
    const literalError = checkLiteral(literal);
    if (literalError) return literalError;
    if (literal !== '') parts.push(literal);
    if (open === -1) break;
    const close = template.indexOf('}', open + 1);
    if (close === -1) return "unmatched '{'";
    const body = template.slice(open + 1, close);
    if (body.includes('{')) return "'{' inside an expression";
    const expression = parseExpression(body);
    if (typeof expression === 'string') return expression;
    parts.push(expression);
    pos = close + 1;
  }
  return parts;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function percentEncode(value: string, keep: RegExp): string {
  let out = '';
  for (const ch of value.replace(LONE_SURROGATE, '\uFFFD')) {
    out += keep.test(ch) ? ch : encodeURIComponent(ch).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  }
  return out;
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const UNRESERVED_OR_RESERVED = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]$/;

function encodeValue(value: string, allowReserved: boolean): string {
  if (!allowReserved) return percentEncode(value, UNRESERVED);
  // Reserved expansion keeps existing percent-escapes as they are.
  return value
    .split(/(%[0-9A-Fa-f]{2})/)
    .map((piece, i) => (i % 2 === 1 ? piece : percentEncode(piece, UNRESERVED_OR_RESERVED)))
    .join('');
}

function expandExpression(operator: Operator, vars: readonly VarSpec[], values: Record<string, string>): string {
  const pieces: string[] = [];
  for (const spec of vars) {
    if (!Object.hasOwn(values, spec.name)) continue;
    const raw = values[spec.name]!;
    const value = spec.prefix === null ? raw : Array.from(raw).slice(0, spec.prefix).join('');
    const encoded = encodeValue(value, operator.allowReserved);
    if (!operator.named) pieces.push(encoded);
    else pieces.push(value === '' ? `${spec.name}${operator.ifEmpty}` : `${spec.name}=${encoded}`);
  }
  return pieces.length === 0 ? '' : operator.first + pieces.join(operator.separator);
}

/** An error message if the template is not a valid RFC 6570 template, else null. */
export function validateUrlTemplate(template: string): string | null {
  const parsed = parseTemplate(template);
  return typeof parsed === 'string' ? `Invalid URL template: ${parsed}` : null;
}

/** The variable names the template uses, in order of first use. Precondition: valid template. */
export function urlTemplateVariables(template: string): string[] {
  const parsed = parseTemplate(template);
  if (typeof parsed === 'string') return [];
  const names = new Set<string>();
  for (const part of parsed) if (typeof part !== 'string') for (const v of part.vars) names.add(v.name);
  return [...names];
}

/**
 * Expands the template. Variables absent from `values` are undefined in the RFC's sense (they
 * and their operator's decoration vanish); an empty string is defined. An invalid template
 * expands to the empty string, which no caller will take for a link. Literal text is copied,
 * with characters a URL cannot hold (non-ASCII) percent-encoded.
 */
export function expandUrlTemplate(template: string, values: Record<string, string>): string {
  const parsed = parseTemplate(template);
  if (typeof parsed === 'string') return '';
  return parsed
    .map((part) => (typeof part === 'string' ? encodeValue(part, true) : expandExpression(part.operator, part.vars, values)))
    .join('');
}
