// File names of uploads as they appear in paths and URLs (src/domain/uploads.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sanitizeFileName } from '../../src/domain/uploads.js';
import { hasLoneSurrogate } from '../../src/domain/unicode.js';

const names = suite('upload file names');

names('directories, spaces and punctuation go; letters and digits of any script stay', () => {
  assert.is(sanitizeFileName('../../etc/pass wd?.txt'), 'pass-wd.txt');
  assert.is(sanitizeFileName('C:\\Users\\me\\Résumé 2026.pdf'), 'Résumé-2026.pdf');
  assert.is(sanitizeFileName('...hidden'), 'hidden');
  assert.is(sanitizeFileName('???'), 'uploaded-file');
});

names('a long name is cut by characters, never inside an astral letter', () => {
  // 𐐀 (U+10400) is a letter of two UTF-16 units.
  const cut = sanitizeFileName(`a${'\u{10400}'.repeat(250)}.png`);
  assert.is(cut, `a${'\u{10400}'.repeat(199)}`);
  assert.not.ok(hasLoneSurrogate(cut), 'no half character');
});

names.run();
