// Alert words: a user's words or phrases that flag a message (`has_alert_word`) when it
// contains them. Matching is on the message source, ignoring case, as whole words: the
// characters either side of a match must not be letters, digits or underscores. Text in code
// (fenced blocks and inline code spans) does not count, since code quotes rather than says.

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** The message source with fenced code blocks and inline code spans blanked out. */
function withoutCode(content: string): string {
  const kept: string[] = [];
  let open: { marker: string } | null = null;
  for (const line of content.split('\n')) {
    const fence = FENCE.exec(line);
    if (open) {
      const closes = fence && fence[1]![0] === open.marker[0] && fence[1]!.length >= open.marker.length;
      if (closes && fence[2]!.trim() === '') open = null;
      continue;
    }
    if (fence && !(fence[1]![0] === '`' && fence[2]!.includes('`'))) {
      // Quote, spoiler and math fences hold prose, which may well contain an alert word.
      const kind = fence[2]!.trim().split(/\s/, 1)[0]!.toLowerCase();
      if (kind !== 'quote' && kind !== 'spoiler') open = { marker: fence[1]! };
      continue;
    }
    kept.push(blankCodeSpans(line));
  }
  return kept.join('\n');
}

/** Replaces each inline code span (a run of N backticks up to the next run of exactly N). */
function blankCodeSpans(line: string): string {
  let out = '';
  let pos = 0;
  for (;;) {
    const open = line.indexOf('`', pos);
    if (open === -1) return out + line.slice(pos);
    let openEnd = open;
    while (line[openEnd] === '`') openEnd++;
    const run = '`'.repeat(openEnd - open);
    let close = line.indexOf(run, openEnd);
    while (close !== -1 && (line[close + run.length] === '`' || line[close - 1] === '`')) {
      let skip = close;
      while (line[skip] === '`') skip++;
      close = line.indexOf(run, skip);
    }
    if (close === -1) {
      out += line.slice(pos, openEnd);
      pos = openEnd;
      continue;
    }
    out += `${line.slice(pos, open)} `;
    pos = close + run.length;
  }
}

function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && WORD_CHAR.test(ch);
}

function containsWord(haystack: string, word: string): boolean {
  for (let at = haystack.indexOf(word); at !== -1; at = haystack.indexOf(word, at + 1)) {
    if (!isWordChar(haystack[at - 1]) && !isWordChar(haystack[at + word.length])) return true;
  }
  return false;
}

export function matchesAlertWords(content: string, words: readonly string[]): boolean {
  const wanted = words.map((w) => w.trim().toLowerCase()).filter((w) => w !== '');
  if (wanted.length === 0) return false;
  const text = withoutCode(content).toLowerCase();
  return wanted.some((w) => containsWord(text, w));
}
