// Split a migration file into statements at top-level semicolons, respecting quoted strings,
// quoted identifiers, dollar-quoted bodies and comments (slonik runs one statement per query).

export function splitStatements(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const n = text.length;
  const push = (end: number) => {
    const stmt = text.slice(start, end).trim();
    if (stmt.replace(/--[^\n]*/g, '').trim().length > 0) out.push(stmt);
  };
  while (i < n) {
    const c = text[i]!;
    if (c === '-' && text[i + 1] === '-') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new Error('Unterminated block comment in migration');
      i = end + 2;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      for (;;) {
        if (j >= n) throw new Error('Unterminated quoted string in migration');
        if (text[j] === c) {
          if (text[j + 1] === c) j += 2; // doubled quote inside
          else break;
        } else j++;
      }
      i = j + 1;
    } else if (c === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(text.slice(i, i + 64));
      if (tag) {
        const end = text.indexOf(tag[0], i + tag[0].length);
        if (end < 0) throw new Error(`Unterminated ${tag[0]} quote in migration`);
        i = end + tag[0].length;
      } else i++;
    } else if (c === ';') {
      push(i);
      start = ++i;
    } else i++;
  }
  push(n);
  return out;
}
