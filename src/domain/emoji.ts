// Unicode emoji names and codes. An emoji's code is its codepoints in lowercase hex, at least
// four digits each, joined by dashes, without the U+FE0F presentation selector: `1f44d`,
// `2764`, `0031-20e3`, `1f1fa-1f1f8`. That is the `emoji_code` of `unicode_emoji` reactions and
// the `emoji-<code>` class of rendered emoji. Dropping U+FE0F makes the text-style and
// emoji-style forms of one emoji the same code, which is what a reaction needs.
//
// Names come from the Unicode CLDR short names shipped by unicode-emoji-json (`thumbs_up`,
// `red_heart`, `party_popper`), plus the short names people type in chat (`+1`, `heart`,
// `tada`). Where a common name exists it is the canonical one that emojiByCode returns.
import { createRequire } from 'node:module';

export interface UnicodeEmoji {
  readonly name: string;
  readonly code: string;
}

// Canonical chat name first, then aliases. Written for this project; every name here must stay
// unique across the table and the CLDR slugs (a test checks that name → code → name round-trips).
const COMMON_NAMES: ReadonlyArray<readonly [code: string, names: readonly string[]]> = [
  ['1f642', ['smile', 'slight_smile']],
  ['1f600', ['grinning']],
  ['1f603', ['smiley']],
  ['1f604', ['big_smile']],
  ['1f602', ['joy']],
  ['1f923', ['rofl']],
  ['1f609', ['wink']],
  ['1f60a', ['blush']],
  ['1f60d', ['heart_eyes']],
  ['1f622', ['cry']],
  ['1f62d', ['sob']],
  ['1f605', ['sweat_smile']],
  ['1f615', ['confused']],
  ['1f631', ['scream']],
  ['1f643', ['upside_down']],
  ['1f644', ['eye_roll']],
  ['1f914', ['thinking']],
  ['1f937', ['shrug']],
  ['1f926', ['facepalm']],
  ['1f44d', ['thumbs_up', '+1', 'like']],
  ['1f44e', ['thumbs_down', '-1']],
  ['1f44b', ['wave']],
  ['1f44f', ['clap']],
  ['1f64f', ['pray']],
  ['1f64c', ['raised_hands']],
  ['1f4aa', ['muscle']],
  ['1f44c', ['ok_hand']],
  ['2764', ['heart']],
  ['1f389', ['tada']],
  ['1f680', ['rocket']],
  ['1f440', ['eyes']],
  ['1f525', ['fire']],
  ['1f4af', ['100']],
  ['2705', ['check', 'white_check_mark']],
  ['2714', ['check_mark', 'heavy_check_mark']],
  ['274c', ['cross_mark', 'x']],
  ['2728', ['sparkles']],
  ['26a0', ['warning']],
  ['1f4a1', ['bulb', 'idea']],
  ['26a1', ['zap']],
  ['2615', ['coffee']],
  ['1f37a', ['beer']],
  ['1f41b', ['bug']],
  ['1f419', ['octopus']],
  ['2753', ['question']],
  ['2757', ['exclamation']],
  ['1f512', ['lock']],
  ['1f381', ['gift']],
  ['1f3af', ['bullseye']],
];

const SKIN_TONE_FIRST = 0x1f3fb;
const SKIN_TONE_LAST = 0x1f3ff;
const PRESENTATION_SELECTOR = 0xfe0f;
const CODE_SHAPE = /^[0-9a-f]{1,6}(?:-[0-9a-f]{1,6})*$/;

interface EmojiTables {
  readonly byName: ReadonlyMap<string, string>;
  readonly nameOfCode: ReadonlyMap<string, string>;
  readonly takesSkinTone: ReadonlySet<string>;
}

let tables: EmojiTables | null = null;

/** The code of an emoji written as characters (see the file comment for the format). */
export function emojiCodeOf(chars: string): string {
  const parts: string[] = [];
  for (const ch of chars) {
    const cp = ch.codePointAt(0)!;
    if (cp !== PRESENTATION_SELECTOR) parts.push(cp.toString(16).padStart(4, '0'));
  }
  return parts.join('-');
}

function loadTables(): EmojiTables {
  if (tables) return tables;
  const require = createRequire(import.meta.url);
  const data: unknown = require('unicode-emoji-json/data-by-emoji.json');
  const byName = new Map<string, string>();
  const nameOfCode = new Map<string, string>();
  const takesSkinTone = new Set<string>();
  if (typeof data === 'object' && data !== null) {
    for (const [chars, entry] of Object.entries(data)) {
      if (typeof entry !== 'object' || entry === null) continue;
      const { slug, skin_tone_support: skinTone } = entry as { slug?: unknown; skin_tone_support?: unknown };
      if (typeof slug !== 'string') continue;
      const code = emojiCodeOf(chars);
      byName.set(slug, code);
      nameOfCode.set(code, slug);
      if (skinTone === true) takesSkinTone.add(code);
    }
  }
  for (const [code, names] of COMMON_NAMES) {
    if (!nameOfCode.has(code)) continue;
    nameOfCode.set(code, names[0]);
    for (const name of names) byName.set(name, code);
  }
  tables = { byName, nameOfCode, takesSkinTone };
  return tables;
}

/** Normalises a code as clients send it (any case, with or without fe0f); null if malformed. */
function normaliseCode(code: string): string | null {
  const lower = code.toLowerCase();
  if (!CODE_SHAPE.test(lower)) return null;
  const points = lower.split('-').map((hex) => parseInt(hex, 16));
  if (points.some((cp) => cp > 0x10ffff)) return null;
  return points
    .filter((cp) => cp !== PRESENTATION_SELECTOR)
    .map((cp) => cp.toString(16).padStart(4, '0'))
    .join('-');
}

function withoutSkinTones(code: string): string {
  return code
    .split('-')
    .filter((hex) => {
      const cp = parseInt(hex, 16);
      return cp < SKIN_TONE_FIRST || cp > SKIN_TONE_LAST;
    })
    .join('-');
}

export function emojiByName(name: string): UnicodeEmoji | null {
  const code = loadTables().byName.get(name);
  return code === undefined ? null : { name, code };
}

/**
 * The emoji with this code, named by its canonical name. A skin-toned code of an emoji that
 * takes skin tones resolves to the base emoji's name and keeps its tones in `code`.
 */
export function emojiByCode(code: string): UnicodeEmoji | null {
  const normal = normaliseCode(code);
  if (normal === null) return null;
  const t = loadTables();
  const name = t.nameOfCode.get(normal);
  if (name !== undefined) return { name, code: normal };
  const base = withoutSkinTones(normal);
  if (base === normal || !t.takesSkinTone.has(base)) return null;
  const baseName = t.nameOfCode.get(base);
  return baseName === undefined ? null : { name: baseName, code: normal };
}

/** True for the code of a known emoji, written exactly in the canonical format. */
export function isValidEmojiCode(code: string): boolean {
  return emojiByCode(code)?.code === code;
}

/** Every canonical name with its code; for checks over the whole table. */
export function allEmoji(): UnicodeEmoji[] {
  return [...loadTables().nameOfCode].map(([code, name]) => ({ name, code }));
}
