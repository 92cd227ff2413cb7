// Realm linkifiers: a pattern and a URL template that turn text such as `#123` into a link.
// Used for message content (via the Markdown renderer) and for a message's `topic_links`.
//
// Like the reference server, a match counts only where it starts the text or follows
// whitespace or an opening punctuation mark, and only where no letter, digit or underscore
// follows it. Linkifiers apply in the realm's order; an earlier one's match wins over a later
// overlapping one.
//
// Patterns are screened when compiled (linkifier-pattern.ts), but a backtracking engine cannot
// be made safe by screening alone, so matching is also bounded: each attempt sees at most
// MATCH_WINDOW characters, and a MatchBudget caps the time all linkifiers together may take on
// one message. Only a pathological pattern ever exhausts a budget; if one does, the rest of
// that message is left unlinkified rather than stalling the server.
import { compileLinkifierPattern, LinkifierPatternError } from './linkifier-pattern.js';
import { isWordChar, startsSyntax } from './markdown/boundaries.js';
import { isAllowedLinkUrl } from './markdown/link-policy.js';
import { hasLoneSurrogate, splitsSurrogatePair } from './unicode.js';
import { expandUrlTemplate, urlTemplateVariables, validateUrlTemplate } from './url-template.js';

export interface LinkifierDefinition {
  readonly id: number;
  readonly pattern: string;
  readonly urlTemplate: string;
}

export interface CompiledLinkifier {
  readonly id: number;
  /** Sticky; refuses to end before a word character. */
  readonly matcher: RegExp;
  readonly urlTemplate: string;
}

export interface LinkifierMatch {
  readonly start: number;
  readonly end: number;
  readonly url: string;
}

// Each attempt sees at most this much text. Real linkifier matches are far shorter.
const MATCH_WINDOW = 128;
const DEFAULT_BUDGET_MS = 50;

/** A time limit for linkifier matching, shared by every text of one message. */
export class MatchBudget {
  private readonly deadline: number;

  constructor(milliseconds = DEFAULT_BUDGET_MS) {
    this.deadline = performance.now() + milliseconds;
  }

  get exhausted(): boolean {
    return performance.now() > this.deadline;
  }
}

/**
 * Checks a linkifier as an administrator submits it: an error message, or null if valid. The
 * template must be valid, use only the pattern's named groups, and produce http(s), mailto or
 * relative links.
 */
export function checkLinkifier(pattern: string, urlTemplate: string): string | null {
  let regex: RegExp;
  try {
    regex = compileLinkifierPattern(pattern);
  } catch (e) {
    if (e instanceof LinkifierPatternError) return e.message;
    throw e;
  }
  const templateError = validateUrlTemplate(urlTemplate);
  if (templateError) return templateError;
  // An empty alternative makes the pattern match '', which lists every named group.
  const groups = new Set(Object.keys(new RegExp(`${regex.source}|`).exec('')?.groups ?? {}));
  for (const name of urlTemplateVariables(urlTemplate)) {
    if (!groups.has(name)) return `Group "${name}" in URL template is not present in linkifier pattern.`;
  }
  const sample = Object.fromEntries([...groups].map((g) => [g, 'x']));
  if (!isAllowedLinkUrl(expandUrlTemplate(urlTemplate, sample))) {
    return 'URL template must produce http, https, mailto or relative links.';
  }
  return null;
}

/** Compiles the realm's linkifiers, skipping any that no longer compile. */
export function compileLinkifiers(linkifiers: ReadonlyArray<LinkifierDefinition>): CompiledLinkifier[] {
  const out: CompiledLinkifier[] = [];
  for (const l of linkifiers) {
    let regex: RegExp;
    try {
      regex = compileLinkifierPattern(l.pattern);
    } catch {
      continue;
    }
    const matcher = new RegExp(`(?:${regex.source})(?![A-Za-z0-9_])`, `${regex.flags}y`);
    out.push({ id: l.id, matcher, urlTemplate: l.urlTemplate });
  }
  return out;
}

function groupValues(m: RegExpExecArray): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(m.groups ?? {})) if (value !== undefined) values[name] = value;
  return values;
}

/** Non-overlapping linkifier matches in `text`, ordered by position. */
export function findLinkifierMatches(
  text: string,
  linkifiers: readonly CompiledLinkifier[],
  budget: MatchBudget = new MatchBudget(),
): LinkifierMatch[] {
  if (linkifiers.length === 0 || text === '') return [];
  const taken = new Uint8Array(text.length);
  const matches: LinkifierMatch[] = [];
  for (const l of linkifiers) {
    for (let pos = 0; pos < text.length; pos++) {
      if (taken[pos] || !startsSyntax(text, pos)) continue;
      if (budget.exhausted) return matches.sort((a, b) => a.start - b.start);
      l.matcher.lastIndex = 0;
      const m = l.matcher.exec(text.slice(pos, pos + MATCH_WINDOW));
      if (!m || m[0] === '') continue;
      const end = pos + m[0].length;
      if (isWordChar(text[end]) || taken.subarray(pos, end).includes(1)) continue;
      // The pattern runs on UTF-16 code units (no `u` flag): a match or group holding half of
      // an astral character (beyond U+FFFF) would render as broken text, so it is not a link.
      if (splitsSurrogatePair(text, pos) || splitsSurrogatePair(text, end) || m.some((g) => g !== undefined && hasLoneSurrogate(g))) continue;
      const url = expandUrlTemplate(l.urlTemplate, groupValues(m));
      if (url === '' || !isAllowedLinkUrl(url)) continue;
      taken.fill(1, pos, end);
      matches.push({ start: pos, end, url });
      pos = end - 1;
    }
  }
  return matches.sort((a, b) => a.start - b.start);
}

const BARE_URL = /\bhttps?:\/\/[^\s<>"]+/g;

function count(text: string, ch: string): number {
  return text.split(ch).length - 1;
}

/** Drops trailing punctuation that usually ends the sentence rather than the URL. */
function trimUrl(url: string): string {
  let end = url.length;
  while (end > 0) {
    const c = url[end - 1]!;
    const head = url.slice(0, end);
    const unbalancedClose = c === ')' && count(head, ')') > count(head, '(');
    if ('.,;:!?\'"'.includes(c) || unbalancedClose) end--;
    else break;
  }
  return url.slice(0, end);
}

/**
 * What the API sends as a message's `topic_links`: every linkifier match and every bare
 * http(s) URL in the topic, in order of appearance.
 */
export function topicLinks(
  topic: string,
  linkifiers: ReadonlyArray<LinkifierDefinition>,
): Array<{ text: string; url: string }> {
  const found = findLinkifierMatches(topic, compileLinkifiers(linkifiers)).map((m) => ({
    start: m.start,
    end: m.end,
    url: m.url,
  }));
  for (const m of topic.matchAll(BARE_URL)) {
    const url = trimUrl(m[0]);
    const start = m.index;
    const end = start + url.length;
    if (found.some((f) => f.start < end && start < f.end)) continue;
    found.push({ start, end, url });
  }
  return found.sort((a, b) => a.start - b.start).map((f) => ({ text: topic.slice(f.start, f.end), url: f.url }));
}
