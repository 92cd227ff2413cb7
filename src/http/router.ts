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
  readonly segments: readonly Segment[];
  readonly methods: MethodTable;
}

export interface Match {
  readonly pattern: string;
  readonly methods: MethodTable;
  readonly pathParams: Record<string, string>;
}

export class Router {
  private readonly byLength = new Map<number, Compiled[]>();

  constructor(table: RouteTable) {
    for (const [pattern, methods] of Object.entries(table)) {
      const segments = pattern
        .split('/')
        .slice(1)
        .map((s): Segment => {
          const m = /^\{([a-z_]+)\}$/.exec(s);
          return m ? { param: m[1]! } : { literal: s };
        });
      const list = this.byLength.get(segments.length) ?? [];
      list.push({ pattern, segments, methods });
      this.byLength.set(segments.length, list);
    }
    // Most literal segments first, and literals earlier in the path first.
    for (const list of this.byLength.values()) {
      list.sort((a, b) => rank(b) - rank(a));
    }
  }

  match(path: string): Match | null {
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
      const pathParams: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < c.segments.length && ok; i++) {
        const s = c.segments[i]!;
        if ('literal' in s) ok = s.literal === decoded[i];
        else if (decoded[i]!.length === 0) ok = false;
        else pathParams[s.param] = decoded[i]!;
      }
      if (ok) return { pattern: c.pattern, methods: c.methods, pathParams };
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
