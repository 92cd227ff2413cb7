// TeX: `$$x$$` inline and ```math blocks. Parley does not typeset TeX on the server; it renders
// the source, escaped, in the class the reference server uses for TeX it could not typeset, so
// clients that typeset TeX themselves find it and others show readable source.
import type MarkdownIt from 'markdown-it';
import type { StateInline } from 'markdown-it';
import { escapeHtml } from 'markdown-it/lib/common/utils.mjs';

const DOLLAR = 0x24;

export function texErrorHtml(source: string): string {
  return `<span class="tex-error">${escapeHtml(source)}</span>`;
}

function inlineMathRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== DOLLAR || src.charCodeAt(start + 1) !== DOLLAR) return false;
  const close = src.indexOf('$$', start + 2);
  if (close === -1 || close === start + 2 || close + 2 > state.posMax) return false;
  if (!silent) state.push('parley_math_inline', 'span', 0).content = src.slice(start, close + 2);
  state.pos = close + 2;
  return true;
}

export function mathPlugin(md: MarkdownIt): void {
  md.inline.ruler.after('linkify', 'parley_math', inlineMathRule);
  md.renderer.rules['parley_math_inline'] = (tokens, idx) => texErrorHtml(tokens[idx]!.content);
}
