// Organization and channel descriptions are extended Markdown, rendered without mentions.
import { emptyMarkdownContext, renderMarkdown } from './markdown/index.js';

export function renderPlainDescription(text: string): string {
  return text.trim().length === 0 ? '' : renderMarkdown(text, emptyMarkdownContext).html;
}
