// Links: which URLs are allowed (link-policy.ts), what the message links to (for has_link,
// attachments and link previews), and inline previews of uploaded images.
//
// A link to an uploaded image on this server is followed, after the paragraph or heading that
// holds it, by a preview:
//   <div class="message_inline_image"><a href="URL" title="name"><img src="URL"></a></div>
// Each image is previewed once per message; links in table cells get no preview, since a block
// cannot go between cells. Markdown image syntax (`![alt](url)`) is not supported, so a message
// can never make clients fetch an arbitrary external image; it renders as `!` and a link.
import type MarkdownIt from 'markdown-it';
import type { StateCore, Token } from 'markdown-it';
import { escapeHtml } from 'markdown-it/lib/common/utils.mjs';
import { fileNameOf, isAllowedLinkUrl, isLocalUploadImage, uploadPathIdOf } from './link-policy.js';
import { renderStateOf, type RenderState } from './render-state.js';

const PREVIEW = 'parley_inline_image';
const PREVIEW_AFTER = new Set(['paragraph_close', 'heading_close']);

/** The visible text of the link that opens at children[start]. */
function linkText(children: Token[], start: number): string {
  let text = '';
  for (let i = start + 1; i < children.length && children[i]!.type !== 'link_close'; i++) {
    text += children[i]!.content;
  }
  return text;
}

/** Records every link in one inline token; returns the previews it asks for. */
function collectLinks(children: Token[], st: RenderState): Array<{ href: string; title: string }> {
  const previews: Array<{ href: string; title: string }> = [];
  children.forEach((token, i) => {
    if (token.type !== 'link_open') return;
    const href = token.attrGet('href') ?? '';
    st.links.add(href);
    const pathId = uploadPathIdOf(href);
    if (pathId !== null) st.uploadPathIds.add(pathId);
    if (isLocalUploadImage(href) && !st.previewedImages.has(href)) {
      st.previewedImages.add(href);
      previews.push({ href, title: linkText(children, i).trim() || fileNameOf(href) });
    }
  });
  return previews;
}

function linksRule(state: StateCore): void {
  const st = renderStateOf(state);
  const out: Token[] = [];
  let pending: Token[] = [];
  for (const token of state.tokens) {
    out.push(token);
    if (token.type === 'inline' && token.children) {
      pending = collectLinks(token.children, st).map(({ href, title }) => {
        const preview = new state.Token(PREVIEW, 'div', 0);
        preview.attrs = [['href', href], ['title', title]];
        preview.level = token.level;
        return preview;
      });
    } else if (pending.length > 0) {
      if (PREVIEW_AFTER.has(token.type)) {
        out.push(...pending);
        st.hasImage = true;
      } else {
        for (const p of pending) st.previewedImages.delete(p.attrGet('href') ?? '');
      }
      pending = [];
    }
  }
  state.tokens = out;
}

export function linksPlugin(md: MarkdownIt): void {
  md.validateLink = isAllowedLinkUrl;
  md.core.ruler.push('parley_links', linksRule);
  md.renderer.rules[PREVIEW] = (tokens, idx) => {
    const token = tokens[idx]!;
    const href = escapeHtml(token.attrGet('href') ?? '');
    const title = escapeHtml(token.attrGet('title') ?? '');
    return `<div class="message_inline_image"><a href="${href}" title="${title}"><img src="${href}"></a></div>\n`;
  };
}
