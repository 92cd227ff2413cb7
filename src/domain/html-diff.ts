// `content_html_diff` for message edit history: the new rendering, with text added since the
// old one wrapped in <span class="highlight_text_inserted"> and text removed shown in place,
// wrapped in <span class="highlight_text_deleted">. The whole is wrapped in one <div>, as the
// reference server's is.
//
// The diff works on tokens: tags, words and runs of whitespace. Tags are never wrapped and
// removed tags are dropped, so the output's tag structure is the new rendering's, and a span
// never crosses a tag. Precondition: both inputs are HTML from the renderer, where '<' and '>'
// inside attribute values are escaped.
//
// Cost: a Myers diff over the tokens between the common prefix and suffix, with the number of
// edits it may explore capped by a budget proportional to 1 / input size. Past the cap, the
// changed middle is shown as deleted in full and then inserted in full: a coarser diff, but
// never a slow one.

const TOKEN = /<[^>]*>?|[^<\s]+|\s+/g;
const WORK_BUDGET = 4_000_000;
const MAX_EDITS = 1000;

type Op = 'equal' | 'insert' | 'delete';

interface Edit {
  readonly op: Op;
  readonly token: string;
}

function tokenize(html: string): string[] {
  return html.match(TOKEN) ?? [];
}

function isTag(token: string): boolean {
  return token.startsWith('<');
}

/** Myers' shortest edit script between a and b (token ids), or null past maxEdits. */
function shortestEdit(a: Int32Array, b: Int32Array, maxEdits: number): Op[] | null {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, maxEdits);
  const offset = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  // trace[d] holds v[offset-d-1 .. offset+d+1] as it was before round d.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, d, n, m);
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], last: number, n: number, m: number): Op[] {
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = last; d >= 0; d--) {
    const v = trace[d]!;
    const at = (k: number): number => v[k + d + 1]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : at(prevK);
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push('equal');
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) {
        ops.push('insert');
        y--;
      } else {
        ops.push('delete');
        x--;
      }
    }
  }
  return ops.reverse();
}

function diffTokens(oldTokens: string[], newTokens: string[]): Edit[] {
  let prefix = 0;
  while (prefix < oldTokens.length && prefix < newTokens.length && oldTokens[prefix] === newTokens[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < oldTokens.length - prefix &&
    suffix < newTokens.length - prefix &&
    oldTokens[oldTokens.length - 1 - suffix] === newTokens[newTokens.length - 1 - suffix]
  ) {
    suffix++;
  }
  const oldMid = oldTokens.slice(prefix, oldTokens.length - suffix);
  const newMid = newTokens.slice(prefix, newTokens.length - suffix);

  const ids = new Map<string, number>();
  const idOf = (t: string): number => {
    let id = ids.get(t);
    if (id === undefined) ids.set(t, (id = ids.size));
    return id;
  };
  const a = Int32Array.from(oldMid, idOf);
  const b = Int32Array.from(newMid, idOf);
  const budget = Math.floor(WORK_BUDGET / Math.max(1, a.length + b.length));
  const ops = shortestEdit(a, b, Math.min(MAX_EDITS, budget)) ?? [
    ...oldMid.map((): Op => 'delete'),
    ...newMid.map((): Op => 'insert'),
  ];

  const edits: Edit[] = oldTokens.slice(0, prefix).map((token) => ({ op: 'equal', token }));
  let i = 0;
  let j = 0;
  for (const op of ops) {
    if (op === 'equal') edits.push({ op, token: newMid[(i++, j++)]! });
    else if (op === 'delete') edits.push({ op, token: oldMid[i++]! });
    else edits.push({ op, token: newMid[j++]! });
  }
  for (const token of newTokens.slice(newTokens.length - suffix)) edits.push({ op: 'equal', token });
  return edits;
}

const SPAN_CLASS: Readonly<Record<Exclude<Op, 'equal'>, string>> = {
  insert: 'highlight_text_inserted',
  delete: 'highlight_text_deleted',
};

function markRun(op: Exclude<Op, 'equal'>, text: string): string {
  // Whitespace alone is not worth marking. Removed whitespace is kept too: it usually stood
  // beside removed words, which are still shown, and extra whitespace renders harmlessly.
  if (text.trim() === '') return text;
  return `<span class="${SPAN_CLASS[op]}">${text}</span>`;
}

export function htmlDiff(oldHtml: string, newHtml: string): string {
  const parts: string[] = ['<div>'];
  let runOp: Exclude<Op, 'equal'> | null = null;
  let runText = '';
  for (const { op, token } of diffTokens(tokenize(oldHtml), tokenize(newHtml))) {
    if (runOp !== null && (op !== runOp || isTag(token))) {
      parts.push(markRun(runOp, runText));
      runOp = null;
    }
    if (op === 'equal' || isTag(token)) {
      if (op !== 'delete') parts.push(token);
    } else if (runOp === null) {
      runOp = op;
      runText = token;
    } else {
      runText += token;
    }
  }
  if (runOp !== null) parts.push(markRun(runOp, runText));
  parts.push('</div>');
  return parts.join('');
}
