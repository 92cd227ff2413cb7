// Linkifier patterns are written as Python regular expressions (`#(?P<id>[0-9]+)`), as the
// API documents. This translates them to JavaScript and refuses what would be unsafe to run on
// every message of a realm.
//
// The reference server runs linkifiers with RE2, so patterns it accepts have no
// backreferences and no lookaround; Parley refuses those too, which keeps the two servers
// accepting the same patterns. V8's engine backtracks, so Parley also refuses the obvious
// shapes of catastrophic backtracking:
// - a group repeated many times that itself repeats or alternates: `(a+)+`, `(a|a)*`,
//   `(\w+\s?)*` (exponential);
// - two long repetitions in a row with nothing required between them: `\w+\w+`, `.*.*`,
//   `\d+(?:x)?\d*` (polynomial).
// This is a heuristic, not a proof; linkifiers.ts also bounds each match attempt's input and
// the total time linkifiers may spend on one message.

export class LinkifierPatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LinkifierPatternError';
  }
}

const MAX_PATTERN_LENGTH = 1000;
const MAX_GROUP_REPEAT = 10;
// A repetition allowing more than this many is treated like an unbounded one.
const LONG_REPEAT = 16;

interface GroupFrame {
  repeats: boolean;
  alternates: boolean;
  /** Whether a long repetition ran into the group's opening. */
  readonly longRunBefore: boolean;
}

interface Quantifier {
  /** The JavaScript spelling. */
  readonly text: string;
  readonly length: number;
  readonly min: number;
  readonly unbounded: boolean;
  readonly max: number;
}

function fail(why: string): never {
  throw new LinkifierPatternError(`Bad regular expression: ${why}`);
}

function readQuantifier(src: string, i: number): Quantifier | null {
  const c = src[i];
  if (c === '*' || c === '+') return { text: c, length: 1, min: c === '+' ? 1 : 0, unbounded: true, max: Infinity };
  if (c === '?') return { text: c, length: 1, min: 0, unbounded: false, max: 1 };
  if (c !== '{') return null;
  // Python reads `{m}`, `{m,}`, `{,n}` and `{m,n}` as repetition and any other brace literally.
  const m = /^\{(\d*)(,(\d*))?\}/.exec(src.slice(i, i + 24));
  if (!m || (m[1] === '' && (m[2] === undefined || m[3] === ''))) return null;
  const min = m[1] === '' ? 0 : Number(m[1]);
  const length = m[0].length;
  if (m[2] === undefined) return { text: `{${min}}`, length, min, unbounded: false, max: min };
  if (m[3] === '') return { text: `{${min},}`, length, min, unbounded: true, max: Infinity };
  const max = Number(m[3]);
  return { text: `{${min},${max}}`, length, min, unbounded: false, max };
}

/** The index just past the character class starting at `start` (a '['). */
function classEnd(src: string, start: number): number {
  let i = start + 1;
  if (src[i] === '^') i++;
  if (src[i] === ']') i++; // a leading ']' is a literal in Python
  while (i < src.length && src[i] !== ']') i += src[i] === '\\' ? 2 : 1;
  if (i >= src.length) fail('unterminated character set');
  return i + 1;
}

function translateClass(cls: string): string {
  // JavaScript reads `[]` as an empty class, Python as a literal ']'.
  return cls.replace(/^\[(\^?)\]/, '[$1\\]');
}

function translateEscape(next: string | undefined): string {
  if (next === undefined) fail('trailing backslash');
  if (/[1-9]/.test(next)) fail('backreferences are not supported');
  if (next === 'A') return '^';
  if (next === 'Z') return '$';
  if (/[NpPg]/.test(next)) fail(`\\${next} is not supported`);
  return `\\${next}`;
}

/** Translates the body of a pattern (leading flags already removed). */
function translate(src: string): string {
  const frames: GroupFrame[] = [{ repeats: false, alternates: false, longRunBefore: false }];
  // The atom just written, while it is not yet known whether a repetition follows it.
  let atom: 'plain' | 'group' | null = null;
  let justClosed: GroupFrame | null = null;
  // A long repetition has been written since the last atom that must match something.
  let longRun = false;
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    const top = frames[frames.length - 1]!;
    const quantifier = readQuantifier(src, i);
    if (quantifier) {
      const long = quantifier.unbounded || quantifier.max > LONG_REPEAT;
      const repeatsGroup = justClosed !== null && (justClosed.repeats || justClosed.alternates);
      if (repeatsGroup && (long || quantifier.max > MAX_GROUP_REPEAT)) {
        fail('a repeated group may not itself repeat or alternate (catastrophic backtracking)');
      }
      // A repeated group's content may be skipped, so what ran into the group runs past it.
      const runBefore: boolean = longRun || (justClosed?.longRunBefore ?? false);
      if (long && runBefore) fail('two long repetitions in a row (catastrophic backtracking)');
      if (long) longRun = true;
      else if (quantifier.min === 0) longRun = runBefore;
      else if (atom === 'plain') longRun = false;
      top.repeats = true;
      out += quantifier.text;
      i += quantifier.length;
      if (src[i] === '?') {
        out += '?';
        i++;
      } else if (src[i] === '+' || src[i] === '*') {
        fail('multiple repeat');
      }
      atom = null;
      justClosed = null;
      continue;
    }
    // The previous atom stands unrepeated: if it is plain, it must match, which ends a run.
    if (atom === 'plain') longRun = false;
    atom = null;
    justClosed = null;
    if (c === '\\') {
      out += translateEscape(src[i + 1]);
      i += 2;
      atom = 'plain';
    } else if (c === '[') {
      const end = classEnd(src, i);
      out += translateClass(src.slice(i, end));
      i = end;
      atom = 'plain';
    } else if (c === '(') {
      const named = /^\(\?P?<(?![=!])/.exec(src.slice(i, i + 4));
      if (named) {
        out += '(?<';
        i += named[0].length;
      } else if (src.startsWith('(?:', i)) {
        out += '(?:';
        i += 3;
      } else if (src[i + 1] === '?') {
        fail('lookaround, backreferences, comments, conditionals and scoped flags are not supported');
      } else {
        out += '(';
        i++;
      }
      frames.push({ repeats: false, alternates: false, longRunBefore: longRun });
    } else if (c === ')') {
      if (frames.length === 1) fail('unbalanced parenthesis');
      const closed = frames.pop()!;
      const parent = frames[frames.length - 1]!;
      parent.repeats ||= closed.repeats;
      parent.alternates ||= closed.alternates;
      justClosed = closed;
      atom = 'group';
      out += ')';
      i++;
    } else if (c === '|') {
      top.alternates = true;
      longRun = false;
      out += c;
      i++;
    } else {
      // A brace that is not a repetition is a literal in Python; say so to JavaScript too.
      out += c === '{' || c === '}' ? `\\${c}` : c;
      i++;
      atom = c === '^' || c === '$' ? null : 'plain';
    }
  }
  if (frames.length !== 1) fail('missing ), unterminated subpattern');
  return out;
}

/**
 * Compiles a Python-style linkifier pattern into a JavaScript RegExp (no `g`/`y` flag).
 * Global flags written at the start (`(?i)`, `(?m)`, `(?s)`; `(?a)` and `(?u)` are accepted
 * and ignored) become RegExp flags. Throws LinkifierPatternError, with a message fit for the
 * API's error response, for invalid, unsupported or obviously catastrophic patterns.
 */
export function compileLinkifierPattern(pythonRegex: string): RegExp {
  if (pythonRegex === '') fail('the pattern is empty');
  if (pythonRegex.length > MAX_PATTERN_LENGTH) fail(`longer than ${MAX_PATTERN_LENGTH} characters`);
  let body = pythonRegex;
  const flags = new Set<string>();
  const lead = /^\(\?([a-zA-Z]+)\)/.exec(body);
  if (lead) {
    for (const flag of lead[1]!) {
      if (flag === 'i' || flag === 'm' || flag === 's') flags.add(flag);
      else if (flag !== 'a' && flag !== 'u') fail(`the (?${flag}) flag is not supported`);
    }
    body = body.slice(lead[0].length);
  }
  const source = translate(body);
  try {
    return new RegExp(source, [...flags].join(''));
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e));
  }
}
