// Path matching for the route tables: `/users/{user_id}/status`. A literal segment beats a
// parameter at the same position, so `/users/me` wins over `/users/{user_id}`.
import { errors } from '../domain/errors.js';
import type { Endpoint } from './endpoint.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export type MethodTable = Partial<Record<Method, Endpoint<any, any>>>; // eslint-disable-line @typescript-eslint/no-explicit-any
export type RouteTable = Readonly<Record<string, MethodTable>>;

type Segment = { readonly literal: string } | { readonly param: string };

interface Compiled {
  readonly pattern: string;
  readonly route: string;
  readonly segments: readonly Segment[];
  readonly methods: MethodTable;
}

export interface Match {
  readonly pattern: string;
  /** The pattern under the table's prefix (`/api/v1/events`): the route's name in metrics, made once. */
  readonly route: string;
  readonly methods: MethodTable;
  readonly pathParams: Readonly<Record<string, string>>;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

export class Router {
  private readonly byLength = new Map<number, Compiled[]>();
  /** Routes without parameters, by their path: most requests are answered by one lookup. */
  private readonly literal = new Map<string, Match>();

  constructor(table: RouteTable, prefix = '') {
    for (const [pattern, methods] of Object.entries(table)) {
      const route = prefix + pattern;
      const segments = pattern
        .split('/')
        .slice(1)
        .map((s): Segment => {
          const m = /^\{([a-z_]+)\}$/.exec(s);
          return m ? { param: m[1]! } : { literal: s };
        });
      if (segments.every((s) => 'literal' in s)) this.literal.set(pattern, { pattern, route, methods, pathParams: NO_PARAMS });
      const list = this.byLength.get(segments.length) ?? [];
      list.push({ pattern, route, segments, methods });
      this.byLength.set(segments.length, list);
    }
    // Most literal segments first, and literals earlier in the path first.
    for (const list of this.byLength.values()) {
      list.sort((a, b) => rank(b) - rank(a));
    }
  }

  /** The route of a path; `pathParams` of the answer is the caller's to keep but not to change. */
  match(path: string): Match | null {
    // A route made only of literals ranks above every other route of its length.
    const exact = this.literal.get(path);
    if (exact) return exact;
    const parts = path.split('/').slice(1);
    const candidates = this.byLength.get(parts.length);
    if (!candidates) return null;
    let decoded: string[];
    try {
      decoded = parts.map((p) => decodeURIComponent(p));
    } catch {
      throw errors.badRequest('Malformed URL path');
    }
    for (const c of candidates) {
      let ok = true;
      for (let i = 0; i < c.segments.length && ok; i++) {
        const s = c.segments[i]!;
        if ('literal' in s) ok = s.literal === decoded[i];
        else ok = decoded[i]!.length > 0;
      }
      if (!ok) continue;
      const pathParams: Record<string, string> = {};
      c.segments.forEach((s, i) => {
        if ('param' in s) pathParams[s.param] = decoded[i]!;
      });
      return { pattern: c.pattern, route: c.route, methods: c.methods, pathParams };
    }
    return null;
  }
}

function rank(c: Compiled): number {
  let r = 0;
  c.segments.forEach((s, i) => {
    if ('literal' in s) r += 1 << (16 - Math.min(i, 16));
  });
  return r;
}
