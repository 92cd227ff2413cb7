import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { allEmoji, emojiByCode, emojiByName, emojiCodeOf, isValidEmojiCode } from '../../src/domain/emoji.js';

const Names = suite('emoji: names');

Names('the common chat names resolve', () => {
  const expected: Array<[string, string]> = [
    ['smile', '1f642'],
    ['+1', '1f44d'],
    ['thumbs_up', '1f44d'],
    ['heart', '2764'],
    ['tada', '1f389'],
    ['octopus', '1f419'],
    ['check', '2705'],
    ['cross_mark', '274c'],
    ['rocket', '1f680'],
    ['eyes', '1f440'],
    ['thinking', '1f914'],
    ['joy', '1f602'],
    ['fire', '1f525'],
    ['100', '1f4af'],
    ['wave', '1f44b'],
    ['clap', '1f44f'],
    ['pray', '1f64f'],
  ];
  for (const [name, code] of expected) assert.equal(emojiByName(name), { name, code }, name);
});

Names('CLDR names from the data package resolve too', () => {
  assert.equal(emojiByName('party_popper'), { name: 'party_popper', code: '1f389' });
  assert.equal(emojiByName('flag_united_states'), { name: 'flag_united_states', code: '1f1fa-1f1f8' });
  assert.equal(emojiByName('keycap_1'), { name: 'keycap_1', code: '0031-20e3' });
});

Names('unknown names and wrong case are not emoji', () => {
  assert.is(emojiByName('working_on_it'), null);
  assert.is(emojiByName('Smile'), null);
  assert.is(emojiByName(''), null);
  assert.is(emojiByName('__proto__'), null);
});

Names.run();

const Codes = suite('emoji: codes');

Codes('a code resolves to the canonical (common) name', () => {
  assert.equal(emojiByCode('1f44d'), { name: 'thumbs_up', code: '1f44d' });
  assert.equal(emojiByCode('2764'), { name: 'heart', code: '2764' });
  assert.equal(emojiByCode('1f419'), { name: 'octopus', code: '1f419' });
});

Codes('codes are normalised: case, the fe0f selector, short hex', () => {
  assert.equal(emojiByCode('2764-FE0F'), { name: 'heart', code: '2764' });
  assert.equal(emojiByCode('31-20e3'), { name: 'keycap_1', code: '0031-20e3' });
});

Codes('skin-toned codes resolve to the base emoji when it takes skin tones', () => {
  assert.equal(emojiByCode('1f44d-1f3fd'), { name: 'thumbs_up', code: '1f44d-1f3fd' });
  assert.is(emojiByCode('1f419-1f3fd'), null);
});

Codes('isValidEmojiCode accepts only known codes in canonical form', () => {
  assert.ok(isValidEmojiCode('1f44d'));
  assert.ok(isValidEmojiCode('1f1fa-1f1f8'));
  assert.ok(isValidEmojiCode('1f44b-1f3fb'));
  for (const bad of ['1F44D', '2764-fe0f', '', 'zzz', '1f44d-', '-1f44d', '110000', '1f44d--1f3fb', 'ffff', '1f44d 1f3fb']) {
    assert.not.ok(isValidEmojiCode(bad), bad);
  }
});

Codes('emojiCodeOf spells characters as a code', () => {
  assert.is(emojiCodeOf('👍'), '1f44d');
  assert.is(emojiCodeOf('❤️'), '2764');
  assert.is(emojiCodeOf('🇺🇸'), '1f1fa-1f1f8');
  assert.is(emojiCodeOf('👨‍💻'), '1f468-200d-1f4bb');
});

Codes('every canonical name round-trips through its code (no name is shared)', () => {
  const all = allEmoji();
  assert.ok(all.length > 1800, `only ${all.length} emoji`);
  for (const { name, code } of all) {
    assert.equal(emojiByName(name), { name, code }, name);
    assert.ok(isValidEmojiCode(code), code);
  }
});

Codes.run();
