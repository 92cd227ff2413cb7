// Where Zulip-style syntax may start. `@**x**`, `#**x**` and linkifier matches count only at
// the start of the text or after whitespace or an opening punctuation mark, so that e-mail
// addresses (`a@**b**`) and words (`abc#123`) are left alone.

const OPENERS = new Set(['\'', '"', '(', '[', '{', '<', '/', ',', ':']);

export function startsSyntax(src: string, pos: number): boolean {
  if (pos === 0) return true;
  const before = src[pos - 1]!;
  return OPENERS.has(before) || /\s/.test(before);
}

/** True where `ch` is a letter, digit or underscore (ASCII, like Python's `\w` on bytes). */
export function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && /[A-Za-z0-9_]/.test(ch);
}
