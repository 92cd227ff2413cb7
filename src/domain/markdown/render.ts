// renderMarkdown: message source → HTML plus what the message mentions and links to.
import { escapeHtml } from 'markdown-it/lib/common/utils.mjs';
import { compileLinkifiers } from '../linkifiers.js';
import { buildParser } from './parser.js';
import { newRenderEnv } from './render-state.js';
import type { MarkdownContext, RenderResult } from './types.js';

const parser = buildParser();

function plainText(content: string): string {
  return content
    .split(/\n{2,}/)
    .filter((p) => p.trim() !== '')
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>\n')}</p>`)
    .join('\n');
}

function emptyResult(html: string): RenderResult {
  return {
    html,
    mentionedUserIds: [],
    mentionedGroupIds: [],
    streamWildcard: false,
    topicWildcard: false,
    hasLink: false,
    hasImage: false,
    hasAttachment: false,
    uploadPathIds: [],
    links: [],
  };
}

/**
 * Renders Zulip-flavoured Markdown. Pure: everything it needs to know about the realm comes
 * from `ctx`, whose lookups must be synchronous and cheap. Never throws: should a rule fail
 * on some input, the message is shown as escaped plain text with nothing mentioned, rather
 * than being impossible to send or to display.
 */
export function renderMarkdown(content: string, ctx: MarkdownContext): RenderResult {
  const env = newRenderEnv(ctx, compileLinkifiers(ctx.linkifiers));
  let html: string;
  try {
    html = parser.render(content, env);
  } catch {
    return emptyResult(plainText(content));
  }
  const st = env.parley;
  const links = [...st.links];
  const uploadPathIds = [...st.uploadPathIds];
  return {
    html: html.replace(/\n$/, ''),
    mentionedUserIds: [...st.mentionedUserIds],
    mentionedGroupIds: [...st.mentionedGroupIds],
    streamWildcard: st.streamWildcard,
    topicWildcard: st.topicWildcard,
    hasLink: links.length > 0,
    hasImage: st.hasImage,
    hasAttachment: uploadPathIds.length > 0,
    uploadPathIds,
    links,
  };
}
