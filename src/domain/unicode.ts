// Strings that are not Unicode text. JavaScript strings are UTF-16 code units and may hold half
// of a surrogate pair; JSON can spell one (`"\ud800"`), and a regular expression without the `u`
// flag can cut a pair in two. Such a string cannot round-trip through UTF-8, and Postgres' json
// type refuses it.

/** In `u` mode a whole pair is one code point, so only a lone surrogate is in category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

export const hasLoneSurrogate = (s: string): boolean => LONE_SURROGATE.test(s);

/** Whether index `i` of `s` falls between the two halves of a surrogate pair. */
export function splitsSurrogatePair(s: string, i: number): boolean {
  if (i <= 0 || i >= s.length) return false;
  const before = s.charCodeAt(i - 1);
  const at = s.charCodeAt(i);
  return before >= 0xd800 && before <= 0xdbff && at >= 0xdc00 && at <= 0xdfff;
}
