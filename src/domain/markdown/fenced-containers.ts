// Fences whose "language" makes them something other than code:
//   ```quote          → <blockquote> around Markdown
//   ```spoiler Header → a collapsed block with a Markdown header and body
//   ```math (tex, latex) → display TeX, shown as its escaped source (see math.ts)
// Quote and spoiler bodies are Markdown, so they may hold fences of their own; the closing
// fence is found by tracking those nested fences. An unterminated fence runs to the end of its
// parent, like an unterminated code fence does.
import type MarkdownIt from 'markdown-it';
import type { StateBlock } from 'markdown-it';
import { texErrorHtml } from './math.js';

type ContainerKind = 'quote' | 'spoiler' | 'math';

const CONTAINER_KINDS: Readonly<Record<string, ContainerKind>> = {
  quote: 'quote',
  spoiler: 'spoiler',
  math: 'math',
  tex: 'math',
  latex: 'math',
};

interface FenceLine {
  readonly marker: number;
  readonly length: number;
  /** The text after the fence, trimmed. */
  readonly info: string;
}

function readFenceLine(state: StateBlock, line: number): FenceLine | null {
  if (state.sCount[line]! - state.blkIndent >= 4) return null;
  const start = state.bMarks[line]! + state.tShift[line]!;
  const max = state.eMarks[line]!;
  const marker = state.src.charCodeAt(start);
  if (marker !== 0x60 /* ` */ && marker !== 0x7e /* ~ */) return null;
  const end = state.skipChars(start, marker);
  if (end - start < 3) return null;
  const info = state.src.slice(end, max).trim();
  if (marker === 0x60 && info.includes('`')) return null;
  return { marker, length: end - start, info };
}

export function containerKindOf(info: string): ContainerKind | null {
  const word = info.split(/\s/, 1)[0]!.toLowerCase();
  return CONTAINER_KINDS[word] ?? null;
}

function closes(line: FenceLine, open: FenceLine): boolean {
  return line.info === '' && line.marker === open.marker && line.length >= open.length;
}

/**
 * The line of the fence closing `open` (which starts at startLine), or endLine if none. For
 * Markdown bodies, fences opened inside are matched first; code and math bodies end at the
 * first closing fence.
 */
function findClosingLine(state: StateBlock, startLine: number, endLine: number, open: FenceLine): number {
  const nested: Array<{ fence: FenceLine; isCode: boolean }> = [];
  const markdownBody = containerKindOf(open.info) !== 'math';
  for (let line = startLine + 1; line < endLine; line++) {
    if (state.bMarks[line]! + state.tShift[line]! < state.eMarks[line]! && state.sCount[line]! < state.blkIndent) {
      return line;
    }
    const fence = readFenceLine(state, line);
    if (!fence) continue;
    const inner = nested[nested.length - 1];
    if (inner) {
      if (closes(fence, inner.fence)) nested.pop();
      else if (!inner.isCode && fence.info !== '') nested.push({ fence, isCode: containerKindOf(fence.info) === null });
    } else if (closes(fence, open)) {
      return line;
    } else if (markdownBody && fence.info !== '') {
      nested.push({ fence, isCode: containerKindOf(fence.info) === null });
    }
  }
  return endLine;
}

function pushHeader(state: StateBlock, header: string, line: number): void {
  state.push('paragraph_open', 'p', 1).map = [line, line + 1];
  const inline = state.push('inline', '', 0);
  inline.content = header;
  inline.map = [line, line + 1];
  inline.children = [];
  state.push('paragraph_close', 'p', -1);
}

function fencedContainerRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const open = readFenceLine(state, startLine);
  if (!open) return false;
  const kind = containerKindOf(open.info);
  if (!kind) return false;
  if (silent) return true;

  const closeLine = findClosingLine(state, startLine, endLine, open);
  const nextLine = closeLine < endLine ? closeLine + 1 : closeLine;

  if (kind === 'math') {
    const token = state.push('parley_math_block', 'p', 0);
    token.content = state.getLines(startLine + 1, closeLine, state.sCount[startLine]!, false);
    token.map = [startLine, nextLine];
    state.line = nextLine;
    return true;
  }

  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  // Lazy continuation lines must not run past the closing fence.
  state.lineMax = closeLine;
  state.parentType = 'blockquote';
  if (kind === 'quote') {
    state.push('blockquote_open', 'blockquote', 1).map = [startLine, nextLine];
    state.md.block.tokenize(state, startLine + 1, closeLine);
    state.push('blockquote_close', 'blockquote', -1);
  } else {
    state.push('parley_spoiler_open', 'div', 1).map = [startLine, nextLine];
    const header = open.info.slice('spoiler'.length).trim();
    if (header !== '') pushHeader(state, header, startLine);
    state.push('parley_spoiler_body', 'div', 0);
    state.md.block.tokenize(state, startLine + 1, closeLine);
    state.push('parley_spoiler_close', 'div', -1);
  }
  state.parentType = oldParent;
  state.lineMax = oldLineMax;
  state.line = nextLine;
  return true;
}

export function fencedContainersPlugin(md: MarkdownIt): void {
  md.block.ruler.before('fence', 'parley_fenced_container', fencedContainerRule, {
    alt: ['paragraph', 'reference', 'blockquote', 'list'],
  });
  const rules = md.renderer.rules;
  rules['parley_spoiler_open'] = () => '<div class="spoiler-block"><div class="spoiler-header">\n';
  rules['parley_spoiler_body'] = () => '</div><div class="spoiler-content" aria-hidden="true">\n';
  rules['parley_spoiler_close'] = () => '</div></div>\n';
  rules['parley_math_block'] = (tokens, idx) => `<p>${texErrorHtml(tokens[idx]!.content)}</p>\n`;
}
