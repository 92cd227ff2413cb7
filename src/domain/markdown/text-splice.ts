// Core rules that find things in already-parsed text (linkifier matches, emoji characters)
// replace a text token by a run of tokens. Only `text` tokens are offered, so code spans and
// code blocks, which are other token types, are never touched.
import type { StateCore, Token } from 'markdown-it';

export interface TextSite {
  readonly text: string;
  readonly level: number;
  /** Inside a link's text, where a nested link must not be made. */
  readonly inLink: boolean;
}

/** Returns the replacement tokens for a text token, or null to keep it. */
export type TextReplacer = (site: TextSite) => Token[] | null;

export function spliceTextTokens(state: StateCore, replace: TextReplacer): void {
  for (const block of state.tokens) {
    const children = block.children;
    if (block.type !== 'inline' || !children) continue;
    // Most inline runs need no change; copy the list only from the first replacement on.
    let out: Token[] | null = null;
    let linkDepth = 0;
    for (let i = 0; i < children.length; i++) {
      const token = children[i]!;
      if (token.type === 'link_open') linkDepth++;
      else if (token.type === 'link_close') linkDepth--;
      const replacement =
        token.type === 'text' && token.content !== ''
          ? replace({ text: token.content, level: token.level, inLink: linkDepth > 0 })
          : null;
      if (replacement) {
        out ??= children.slice(0, i);
        out.push(...replacement);
      } else {
        out?.push(token);
      }
    }
    if (out) block.children = out;
  }
}

/** A plain text token at the given nesting level. */
export function textToken(state: StateCore, text: string, level: number): Token {
  const token = new state.Token('text', '', 0);
  token.content = text;
  token.level = level;
  return token;
}
