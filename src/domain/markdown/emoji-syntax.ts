// Emoji: `:name:` for the realm's custom emoji and for Unicode emoji, and emoji typed as
// characters. Unicode emoji render as a span with the name as text, so every client shows the
// same glyph set (the `emoji-<code>` class) and screen readers get the name:
//   <span aria-label="thumbs up" class="emoji emoji-1f44d" role="img" title="thumbs up">:thumbs_up:</span>
// Labels and titles read the name with spaces for underscores, as the reference server does.
// A realm emoji shadows a Unicode emoji of the same name.
import type MarkdownIt from 'markdown-it';
import type { StateCore, StateInline, Token } from 'markdown-it';
import { emojiByCode, emojiByName, emojiCodeOf, type UnicodeEmoji } from '../emoji.js';
import { isWordChar } from './boundaries.js';
import { elementToken, pushElement, pushVoidElement, type Attrs } from './elements.js';
import { isAllowedLinkUrl } from './link-policy.js';
import { renderStateOf } from './render-state.js';
import { spliceTextTokens, textToken } from './text-splice.js';

const COLON = 0x3a;
const NAME_CHARS = /^[A-Za-z0-9_+-]+$/;
const MAX_NAME_LENGTH = 100;

// Emoji written as characters: flags, keycaps, and pictographs with emoji presentation
// (or text-style ones followed by U+FE0F, so `©` and `™` in prose stay text), optionally
// skin-toned, tag-sequenced or joined into ZWJ sequences.
const PICTOGRAPH = String.raw`(?:\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F)\p{Emoji_Modifier}?`;
const EMOJI_CHARS = new RegExp(
  String.raw`\p{Regional_Indicator}{2}|[#*0-9]\uFE0F?\u20E3|` +
    String.raw`${PICTOGRAPH}(?:[\u{E0020}-\u{E007E}]+\u{E007F})?(?:\u200D${PICTOGRAPH})*`,
  'uy',
);
// Every emoji has a non-ASCII character; keycaps start with the ASCII one before it.
const NON_ASCII = /[^\u0000-\u007f]/g;
const KEYCAP_BASE = /^[#*0-9]$/;

/** Emoji written as characters in `text`, found by trying the full pattern only where one could start. */
function* emojiCharMatches(text: string): Generator<{ index: number; chars: string }> {
  NON_ASCII.lastIndex = 0;
  for (let hit = NON_ASCII.exec(text); hit; hit = NON_ASCII.exec(text)) {
    const start = hit.index > 0 && KEYCAP_BASE.test(text[hit.index - 1]!) ? hit.index - 1 : hit.index;
    EMOJI_CHARS.lastIndex = start;
    const m = EMOJI_CHARS.exec(text);
    if (!m) continue;
    yield { index: start, chars: m[0] };
    NON_ASCII.lastIndex = start + m[0].length;
  }
}

function label(name: string): string {
  return name.replace(/_/g, ' ');
}

function unicodeEmojiAttrs(typedName: string, emoji: UnicodeEmoji): Attrs {
  return [
    ['aria-label', label(typedName)],
    ['class', `emoji emoji-${emoji.code}`],
    ['role', 'img'],
    ['title', label(typedName)],
  ];
}

function emojiNameRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== COLON || isWordChar(src[start - 1])) return false;
  const close = src.indexOf(':', start + 1);
  if (close === -1 || close >= state.posMax || close - start - 1 > MAX_NAME_LENGTH) return false;
  const name = src.slice(start + 1, close);
  if (!NAME_CHARS.test(name) || isWordChar(src[close + 1])) return false;

  const realm = renderStateOf(state).ctx.realmEmoji(name);
  const unicode = realm ? null : emojiByName(name);
  if (realm && !isAllowedLinkUrl(realm.url)) return false;
  if (!realm && !unicode) return false;
  if (!silent) {
    if (realm) {
      pushVoidElement(state, 'img', [
        ['alt', `:${name}:`],
        ['class', 'emoji'],
        ['src', realm.url],
        ['title', label(name)],
      ]);
    } else if (unicode) {
      pushElement(state, 'span', unicodeEmojiAttrs(name, unicode), `:${name}:`);
    }
  }
  state.pos = close + 1;
  return true;
}

function emojiCharsRule(state: StateCore): void {
  spliceTextTokens(state, ({ text, level }) => {
    const out: Token[] = [];
    let last = 0;
    for (const m of emojiCharMatches(text)) {
      const emoji = emojiByCode(emojiCodeOf(m.chars));
      if (!emoji) continue;
      if (m.index > last) out.push(textToken(state, text.slice(last, m.index), level));
      const token = elementToken(state, 'span', unicodeEmojiAttrs(emoji.name, emoji), `:${emoji.name}:`);
      token.level = level;
      out.push(token);
      last = m.index + m.chars.length;
    }
    if (out.length === 0) return null;
    if (last < text.length) out.push(textToken(state, text.slice(last), level));
    return out;
  });
}

export function emojiPlugin(md: MarkdownIt): void {
  md.inline.ruler.after('linkify', 'parley_emoji_name', emojiNameRule);
  md.core.ruler.push('parley_emoji_chars', emojiCharsRule);
}
