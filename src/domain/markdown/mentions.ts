// User, wildcard and group mentions:
//   @**Full Name**  @**Full Name|123**  @**|123**  @_**Full Name**   users (silent with `_`)
//   @**all** @**everyone** @**channel** @**stream**  @**topic**       wildcards
//   @*group name*  @_*group name*                                    groups
// A mention names a user by their current full name, so the rendered text is the name on
// record, not what was typed. With `|id` the id decides; a name typed beside it must be that
// user's. Wildcards keep the word that was typed. Silent mentions render without the `@` and
// notify nobody, and so do mentions inside quotes. Anything that names no one is left exactly
// as typed.
import type MarkdownIt from 'markdown-it';
import type { StateCore, StateInline } from 'markdown-it';
import { startsSyntax } from './boundaries.js';
import { pushElement, type Attrs } from './elements.js';
import { renderStateOf, type RenderState } from './render-state.js';
import type { MarkdownContext } from './types.js';

const AT = 0x40;
const UNDERSCORE = 0x5f;
const STAR = 0x2a;
const STREAM_WILDCARDS = new Set(['all', 'everyone', 'channel', 'stream']);
const TOPIC_WILDCARD = 'topic';

interface MentionSyntax {
  readonly silent: boolean;
  readonly group: boolean;
  readonly body: string;
  readonly end: number;
}

/** Reads `@**body**`, `@_**body**`, `@*body*` or `@_*body*` at pos; body has no `*`. */
function readMention(src: string, pos: number, max: number): MentionSyntax | null {
  if (src.charCodeAt(pos) !== AT || !startsSyntax(src, pos)) return null;
  let p = pos + 1;
  const silent = src.charCodeAt(p) === UNDERSCORE;
  if (silent) p++;
  if (src.charCodeAt(p) !== STAR) return null;
  const group = src.charCodeAt(p + 1) !== STAR;
  const stars = group ? 1 : 2;
  const start = p + stars;
  const close = src.indexOf('*', start);
  if (close === -1 || close === start || close + stars > max) return null;
  if (!group && src.charCodeAt(close + 1) !== STAR) return null;
  return { silent, group, body: src.slice(start, close), end: close + stars };
}

function findUser(body: string, ctx: MarkdownContext): { id: number; fullName: string } | null {
  const withId = /^([^|]*)\|(\d{1,15})$/.exec(body);
  if (!withId) return ctx.userByName(body);
  const user = ctx.userById(Number(withId[2]));
  if (!user) return null;
  const typed = withId[1]!;
  return typed === '' || typed.toLowerCase() === user.fullName.toLowerCase() ? user : null;
}

/** Who a mention notifies when it is not silent. */
type Notifies =
  | { readonly kind: 'user' | 'group'; readonly id: number }
  | { readonly kind: 'stream-wildcard' | 'topic-wildcard' };

export interface ResolvedMention {
  readonly className: string;
  readonly data: [string, string] | null;
  /** The name shown, without `@`. */
  readonly name: string;
  readonly notifies: Notifies;
}

function resolveUserMention(body: string, ctx: MarkdownContext): ResolvedMention | null {
  if (STREAM_WILDCARDS.has(body)) {
    return {
      className: 'user-mention channel-wildcard-mention',
      data: ['data-user-id', '*'],
      name: body,
      notifies: { kind: 'stream-wildcard' },
    };
  }
  if (body === TOPIC_WILDCARD) {
    return { className: 'topic-mention', data: null, name: body, notifies: { kind: 'topic-wildcard' } };
  }
  const user = findUser(body, ctx);
  if (!user) return null;
  return {
    className: 'user-mention',
    data: ['data-user-id', String(user.id)],
    name: user.fullName,
    notifies: { kind: 'user', id: user.id },
  };
}

function resolveGroupMention(body: string, ctx: MarkdownContext): ResolvedMention | null {
  const group = ctx.groupByName(body);
  if (!group) return null;
  return {
    className: 'user-group-mention',
    data: ['data-user-group-id', String(group.id)],
    name: group.name,
    notifies: { kind: 'group', id: group.id },
  };
}

function mentionMarkup(m: ResolvedMention, silent: boolean): { attrs: Attrs; text: string } {
  const attrs: Attrs = [['class', silent ? `${m.className} silent` : m.className]];
  if (m.data) attrs.push(m.data);
  return { attrs, text: silent ? m.name : `@${m.name}` };
}

function mentionRule(state: StateInline, silent: boolean): boolean {
  const syntax = readMention(state.src, state.pos, state.posMax);
  if (!syntax) return false;
  // In silent (lookahead) mode nothing is emitted: the same text is parsed again for real.
  if (!silent) {
    const st = renderStateOf(state);
    const resolved = syntax.group ? resolveGroupMention(syntax.body, st.ctx) : resolveUserMention(syntax.body, st.ctx);
    if (resolved) {
      const { attrs, text } = mentionMarkup(resolved, syntax.silent);
      const token = pushElement(state, 'span', attrs, text);
      if (!syntax.silent) st.loudMentions.set(token, resolved);
    } else {
      state.pending += state.src.slice(state.pos, syntax.end);
    }
  }
  state.pos = syntax.end;
  return true;
}

function record(st: RenderState, notifies: Notifies): void {
  switch (notifies.kind) {
    case 'user':
      st.mentionedUserIds.add(notifies.id);
      break;
    case 'group':
      st.mentionedGroupIds.add(notifies.id);
      break;
    case 'stream-wildcard':
      st.streamWildcard = true;
      break;
    case 'topic-wildcard':
      st.topicWildcard = true;
      break;
  }
}

/**
 * Records who the message notifies. Mentions inside a quote are made silent first, as the
 * reference server does: quoting a message must not notify everyone it mentioned again.
 */
function mentionCensusRule(state: StateCore): void {
  const st = renderStateOf(state);
  if (st.loudMentions.size === 0) return;
  let quoteDepth = 0;
  for (const block of state.tokens) {
    if (block.type === 'blockquote_open') quoteDepth++;
    else if (block.type === 'blockquote_close') quoteDepth--;
    for (const token of block.children ?? []) {
      const mention = st.loudMentions.get(token);
      if (!mention) continue;
      if (quoteDepth === 0) {
        record(st, mention.notifies);
      } else {
        const { attrs, text } = mentionMarkup(mention, true);
        token.attrs = attrs;
        token.content = text;
      }
    }
  }
}

export function mentionsPlugin(md: MarkdownIt): void {
  md.inline.ruler.after('linkify', 'parley_mention', mentionRule);
  md.core.ruler.after('inline', 'parley_mention_census', mentionCensusRule);
}
