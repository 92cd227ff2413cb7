// The one configured markdown-it instance. It holds no per-message state (that travels in
// `env`, see render-state.ts), so it is built once and shared by every render.
//
// Differences from CommonMark, following the reference server's dialect: a single newline is a
// line break; raw HTML is always escaped; no setext headings (`===` under a line), no indented
// code blocks (indentation is common in pasted prose) and no reference-style link
// definitions (a line like `[1]: http://…` would silently vanish).
import MarkdownIt from 'markdown-it';
import { channelLinksPlugin } from './channel-links.js';
import { codeBlocksPlugin } from './code-blocks.js';
import { elementsPlugin } from './elements.js';
import { emojiPlugin } from './emoji-syntax.js';
import { fencedContainersPlugin } from './fenced-containers.js';
import { linkifierPlugin } from './linkifier-rule.js';
import { linksPlugin } from './links.js';
import { mathPlugin } from './math.js';
import { mentionsPlugin } from './mentions.js';

// Deeper nesting than this (quotes in quotes, lists in lists) is rendered as far as this level
// and the rest dropped, which bounds recursion on hostile input.
const MAX_NESTING = 40;

export function buildParser(): MarkdownIt {
  const md = new MarkdownIt('default', {
    html: false,
    linkify: true,
    breaks: true,
    typographer: false,
  });
  // markdown-it reads this option at run time; its type declarations omit it.
  Object.assign(md.options, { maxNesting: MAX_NESTING });
  md.disable(['image', 'lheading', 'code', 'reference', 'html_block', 'html_inline']);
  md.linkify.add('ftp:', null);
  // Strikethrough is <del>, as the reference server renders it (markdown-it says <s>).
  md.renderer.rules['s_open'] = () => '<del>';
  md.renderer.rules['s_close'] = () => '</del>';
  elementsPlugin(md);
  fencedContainersPlugin(md);
  codeBlocksPlugin(md);
  mathPlugin(md);
  mentionsPlugin(md);
  channelLinksPlugin(md);
  emojiPlugin(md);
  // Core rules run in this order: realm linkifiers on text, then emoji characters on what
  // remains text, then the link census (which must see the linkifiers' links).
  linkifierPlugin(md);
  linksPlugin(md);
  return md;
}
