// Mentions, channel links and emoji all render as one element with fixed attributes and plain
// text inside. They are carried as tokens of two generic types, so that escaping happens in
// exactly one place (markdown-it's renderAttrs and escapeHtml) for all of them.
import type MarkdownIt from 'markdown-it';
import type { StateInline, Token } from 'markdown-it';
import { escapeHtml } from 'markdown-it/lib/common/utils.mjs';

const ELEMENT = 'parley_element';
const VOID_ELEMENT = 'parley_void_element';

export type Attrs = Array<[string, string]>;

/** Pushes `<tag attrs>text</tag>` into the inline stream; `text` is plain text, not HTML. */
export function pushElement(state: StateInline, tag: string, attrs: Attrs, text: string): Token {
  const token = state.push(ELEMENT, tag, 0);
  token.attrs = attrs;
  token.content = text;
  return token;
}

/** Builds the same element as a free token, for core rules that splice token lists. */
export function elementToken(state: { Token: typeof Token }, tag: string, attrs: Attrs, text: string): Token {
  const token = new state.Token(ELEMENT, tag, 0);
  token.attrs = attrs;
  token.content = text;
  return token;
}

/** Pushes a void element such as `<img attrs>`. */
export function pushVoidElement(state: StateInline, tag: string, attrs: Attrs): Token {
  const token = state.push(VOID_ELEMENT, tag, 0);
  token.attrs = attrs;
  return token;
}

export function elementsPlugin(md: MarkdownIt): void {
  md.renderer.rules[ELEMENT] = (tokens, idx, _options, _env, self) => {
    const token = tokens[idx]!;
    return `<${token.tag}${self.renderAttrs(token)}>${escapeHtml(token.content)}</${token.tag}>`;
  };
  md.renderer.rules[VOID_ELEMENT] = (tokens, idx, _options, _env, self) => {
    const token = tokens[idx]!;
    return `<${token.tag}${self.renderAttrs(token)}>`;
  };
}
