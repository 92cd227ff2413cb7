// Fenced code blocks, in the markup clients style and highlight themselves:
//   <div class="codehilite" data-code-language="Python"><pre><span></span><code>…</code></pre></div>
// The server does no highlighting. The language attribute carries the language's display name
// for the common ones (so clients see the same value the reference server sends) and the typed
// name otherwise; a fence without a language has no attribute.
import type MarkdownIt from 'markdown-it';
import { escapeHtml, unescapeAll } from 'markdown-it/lib/common/utils.mjs';

const DISPLAY_NAMES: Readonly<Record<string, string>> = {
  bash: 'Bash',
  sh: 'Bash',
  shell: 'Bash',
  zsh: 'Bash',
  c: 'C',
  'c++': 'C++',
  cpp: 'C++',
  'c#': 'C#',
  csharp: 'C#',
  css: 'CSS',
  diff: 'Diff',
  go: 'Go',
  golang: 'Go',
  haskell: 'Haskell',
  html: 'HTML',
  java: 'Java',
  javascript: 'JavaScript',
  js: 'JavaScript',
  json: 'JSON',
  kotlin: 'Kotlin',
  markdown: 'Markdown',
  md: 'Markdown',
  php: 'PHP',
  py: 'Python',
  python: 'Python',
  python3: 'Python',
  rb: 'Ruby',
  ruby: 'Ruby',
  rs: 'Rust',
  rust: 'Rust',
  scala: 'Scala',
  sql: 'SQL',
  swift: 'Swift',
  text: 'Text only',
  ts: 'TypeScript',
  typescript: 'TypeScript',
  xml: 'XML',
  yaml: 'YAML',
  yml: 'YAML',
};

export function codeLanguageName(typed: string): string {
  return DISPLAY_NAMES[typed.toLowerCase()] ?? typed;
}

export function codeBlocksPlugin(md: MarkdownIt): void {
  md.renderer.rules.fence = (tokens, idx) => {
    const token = tokens[idx]!;
    const language = unescapeAll(token.info).trim().split(/\s/, 1)[0]!;
    const attr = language === '' ? '' : ` data-code-language="${escapeHtml(codeLanguageName(language))}"`;
    // A fence left open at the end of the message has no final newline; closed ones do.
    const code = token.content.endsWith('\n') || token.content === '' ? token.content : `${token.content}\n`;
    return `<div class="codehilite"${attr}><pre><span></span><code>${escapeHtml(code)}</code></pre></div>\n`;
  };
}
