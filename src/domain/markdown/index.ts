export { renderMarkdown } from './render.js';
export { emptyMarkdownContext, type MarkdownContext, type RenderResult } from './types.js';
