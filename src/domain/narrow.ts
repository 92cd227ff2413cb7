// The `narrow` of GET /messages and POST /messages/flags/narrow: a list of terms, each
// [operator, operand] or {operator, operand, negated}. Parsing and validation only; the store
// turns a checked narrow into SQL (src/store/message-search.ts).
import { z } from 'zod';
import { errors } from './errors.js';

export type Operand = string | number | readonly number[];

export interface Term {
  readonly operator: string;
  readonly operand: Operand;
  readonly negated: boolean;
}

const operand = z.union([z.string(), z.number().int(), z.array(z.number().int())]);

export const messageNarrowSchema = z.array(
  z.union([
    z.tuple([z.string(), operand]).transform(([operator, o]) => ({ operator, operand: o, negated: false })),
    z.object({ operator: z.string(), operand, negated: z.boolean().default(false) }),
  ]),
);

const ALIASES: Readonly<Record<string, string>> = {
  stream: 'channel',
  subject: 'topic',
  'pm-with': 'dm',
  'group-pm-with': 'dm-including',
  streams: 'channels',
};
const IS_ALIASES: Readonly<Record<string, string>> = { private: 'dm', stream: 'channel' };

const OPERATORS = new Set(['channel', 'channels', 'topic', 'dm', 'dm-including', 'sender', 'id', 'is', 'has', 'search', 'near', 'with']);
const IS_OPERANDS = new Set(['dm', 'channel', 'starred', 'mentioned', 'alerted', 'unread', 'resolved', 'followed', 'muted']);
const HAS_OPERANDS = new Set(['link', 'attachment', 'image', 'reaction']);

/** The parsed narrow: every term canonical (aliases resolved, operands of the right kind). */
export type Narrow = readonly Term[];

/** Validate a narrow; throws BAD_NARROW-style 400s naming what is wrong. */
export function checkNarrow(terms: readonly Term[]): Narrow {
  return terms.map((t) => {
    const negatedPrefix = t.operator.startsWith('-');
    const raw = negatedPrefix ? t.operator.slice(1) : t.operator;
    const operator = ALIASES[raw] ?? raw;
    const negated = t.negated || negatedPrefix;
    if (!OPERATORS.has(operator)) throw errors.badNarrow(`unknown operator ${raw}`);
    let o: Operand = t.operand;
    switch (operator) {
      case 'is': {
        const v = IS_ALIASES[String(o)] ?? String(o);
        if (!IS_OPERANDS.has(v)) throw errors.badNarrow(`unknown 'is' operand ${String(o)}`);
        o = v;
        break;
      }
      case 'has':
        if (!HAS_OPERANDS.has(String(o))) throw errors.badNarrow(`unknown 'has' operand ${String(o)}`);
        o = String(o);
        break;
      case 'channels':
        if (o !== 'public' && o !== 'web-public') throw errors.badNarrow(`unknown 'channels' operand ${String(o)}`);
        break;
      case 'id':
      case 'near':
      case 'with': {
        const n = typeof o === 'number' ? o : /^\d{1,16}$/.test(String(o)) ? Number(o) : NaN;
        if (!Number.isSafeInteger(n)) throw errors.badNarrow(`invalid message ID ${String(o)}`);
        o = n;
        break;
      }
      case 'search':
      case 'topic':
        if (typeof o !== 'string') throw errors.badNarrow(`${operator} operand must be a string`);
        break;
      case 'dm':
      case 'dm-including':
        if (typeof o === 'number') o = [o];
        break;
      case 'channel':
      case 'sender':
        if (Array.isArray(o)) throw errors.badNarrow(`${operator} operand must be a single value`);
        break;
    }
    return { operator, operand: o, negated };
  });
}

/** The channel a narrow is about, if one term names one (not negated). */
export function channelTerm(n: Narrow): Term | undefined {
  return n.find((t) => t.operator === 'channel' && !t.negated);
}

/** Whether the narrow asks for shared history across public channels. */
export function publicChannelsTerm(n: Narrow): Term | undefined {
  return n.find((t) => t.operator === 'channels' && !t.negated);
}
