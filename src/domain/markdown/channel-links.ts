// Channel, topic and message links:
//   #**channel**   #**channel>topic**   #**channel>topic@123**
// The channel part ends at the first `>`; a topic ending in `@<digits>` makes a message link.
// Channels the sender cannot link to (or that do not exist) are left exactly as typed.
import type MarkdownIt from 'markdown-it';
import type { StateInline } from 'markdown-it';
import { channelNarrowUrl, messageNarrowUrl, topicNarrowUrl } from '../narrow-url.js';
import { startsSyntax } from './boundaries.js';
import { pushElement, type Attrs } from './elements.js';
import { renderStateOf } from './render-state.js';

const HASH = 0x23;
const STAR = 0x2a;
const MESSAGE_LINK_ICON = '\u{1f4ac}';

interface ChannelLinkSyntax {
  readonly channel: string;
  readonly topic: string | null;
  readonly messageId: number | null;
  readonly end: number;
}

function readChannelLink(src: string, pos: number, max: number): ChannelLinkSyntax | null {
  if (src.charCodeAt(pos) !== HASH || !startsSyntax(src, pos)) return null;
  if (src.charCodeAt(pos + 1) !== STAR || src.charCodeAt(pos + 2) !== STAR) return null;
  const start = pos + 3;
  const close = src.indexOf('*', start);
  if (close === -1 || close === start || close + 2 > max || src.charCodeAt(close + 1) !== STAR) return null;
  const body = src.slice(start, close);
  const end = close + 2;
  const gt = body.indexOf('>');
  if (gt === -1) return { channel: body, topic: null, messageId: null, end };
  if (gt === 0) return null;
  const channel = body.slice(0, gt);
  const rest = body.slice(gt + 1);
  const near = /^(.*)@(\d{1,15})$/s.exec(rest);
  if (near) return { channel, topic: near[1]!, messageId: Number(near[2]), end };
  return { channel, topic: rest, messageId: null, end };
}

function channelLinkRule(state: StateInline, silent: boolean): boolean {
  const link = readChannelLink(state.src, state.pos, state.posMax);
  if (!link) return false;
  if (!silent) {
    const channel = renderStateOf(state).ctx.channelByName(link.channel);
    if (!channel) {
      state.pending += state.src.slice(state.pos, link.end);
    } else if (link.topic === null) {
      const attrs: Attrs = [
        ['class', 'stream'],
        ['data-stream-id', String(channel.id)],
        ['href', channelNarrowUrl(channel.id, channel.name)],
      ];
      pushElement(state, 'a', attrs, `#${channel.name}`);
    } else if (link.messageId === null) {
      const attrs: Attrs = [
        ['class', 'stream-topic'],
        ['data-stream-id', String(channel.id)],
        ['href', topicNarrowUrl(channel.id, channel.name, link.topic)],
      ];
      pushElement(state, 'a', attrs, `#${channel.name} > ${link.topic}`);
    } else {
      const attrs: Attrs = [
        ['class', 'message-link'],
        ['href', messageNarrowUrl(channel.id, channel.name, link.topic, link.messageId)],
      ];
      pushElement(state, 'a', attrs, `#${channel.name} > ${link.topic} @ ${MESSAGE_LINK_ICON}`);
    }
  }
  state.pos = link.end;
  return true;
}

export function channelLinksPlugin(md: MarkdownIt): void {
  md.inline.ruler.after('linkify', 'parley_channel_link', channelLinkRule);
}
