// Applies the realm's linkifiers to message text. Runs after markdown-it's own linkify, on plain
// text only: code is a different token type, and text inside a link is skipped so links never
// nest.
import type MarkdownIt from 'markdown-it';
import type { StateCore, Token } from 'markdown-it';
import { findLinkifierMatches } from '../linkifiers.js';
import { renderStateOf } from './render-state.js';
import { spliceTextTokens, textToken } from './text-splice.js';

const LINKIFIER_MARKUP = 'linkifier';

function linkifierRule(state: StateCore): void {
  const { linkifiers, linkifierBudget } = renderStateOf(state);
  if (linkifiers.length === 0) return;
  spliceTextTokens(state, ({ text, level, inLink }) => {
    if (inLink) return null;
    const matches = findLinkifierMatches(text, linkifiers, linkifierBudget);
    if (matches.length === 0) return null;
    const out: Token[] = [];
    let last = 0;
    for (const m of matches) {
      if (m.start > last) out.push(textToken(state, text.slice(last, m.start), level));
      const open = new state.Token('link_open', 'a', 1);
      open.attrs = [['href', m.url]];
      open.level = level;
      open.markup = LINKIFIER_MARKUP;
      out.push(open, textToken(state, text.slice(m.start, m.end), level + 1));
      const close = new state.Token('link_close', 'a', -1);
      close.level = level;
      close.markup = LINKIFIER_MARKUP;
      out.push(close);
      last = m.end;
    }
    if (last < text.length) out.push(textToken(state, text.slice(last), level));
    return out;
  });
}

export function linkifierPlugin(md: MarkdownIt): void {
  md.core.ruler.push('parley_linkifiers', linkifierRule);
}
