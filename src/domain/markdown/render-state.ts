// What one renderMarkdown call accumulates while markdown-it walks the message. It travels in
// markdown-it's `env`, the only per-call channel the parser offers, so the parser itself can be
// built once and shared.
import { MatchBudget, type CompiledLinkifier } from '../linkifiers.js';
import type { Token } from 'markdown-it';
import type { ResolvedMention } from './mentions.js';
import type { MarkdownContext } from './types.js';

export interface RenderState {
  readonly ctx: MarkdownContext;
  readonly linkifiers: readonly CompiledLinkifier[];
  readonly linkifierBudget: MatchBudget;
  /** Non-silent mention tokens and what they resolved to, until the census records them. */
  readonly loudMentions: Map<Token, ResolvedMention>;
  readonly mentionedUserIds: Set<number>;
  readonly mentionedGroupIds: Set<number>;
  streamWildcard: boolean;
  topicWildcard: boolean;
  hasImage: boolean;
  readonly links: Set<string>;
  readonly uploadPathIds: Set<string>;
  readonly previewedImages: Set<string>;
}

interface RenderEnv {
  readonly parley: RenderState;
}

export function newRenderEnv(ctx: MarkdownContext, linkifiers: readonly CompiledLinkifier[]): RenderEnv {
  return {
    parley: {
      ctx,
      linkifiers,
      linkifierBudget: new MatchBudget(),
      loudMentions: new Map(),
      mentionedUserIds: new Set(),
      mentionedGroupIds: new Set(),
      streamWildcard: false,
      topicWildcard: false,
      hasImage: false,
      links: new Set(),
      uploadPathIds: new Set(),
      previewedImages: new Set(),
    },
  };
}

/** The render state inside a markdown-it state object; every rule reaches it through here. */
export function renderStateOf(holder: { env: unknown }): RenderState {
  return (holder.env as RenderEnv).parley;
}
