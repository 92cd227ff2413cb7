import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileLinkifierPattern, LinkifierPatternError } from '../../src/domain/linkifier-pattern.js';
import {
  checkLinkifier,
  compileLinkifiers,
  findLinkifierMatches,
  MatchBudget,
  topicLinks,
} from '../../src/domain/linkifiers.js';

const Compile = suite('linkifiers: compiling Python patterns');

Compile('named groups become JavaScript named groups', () => {
  const re = compileLinkifierPattern('#(?P<id>[0-9]+)');
  assert.is(re.source, '#(?<id>[0-9]+)');
  assert.is(re.exec('see #42')?.groups?.['id'], '42');
});

Compile('leading global flags become RegExp flags', () => {
  const re = compileLinkifierPattern('(?i)jira-(?P<id>\\d+)');
  assert.is(re.flags, 'i');
  assert.ok(re.test('JIRA-7'));
});

Compile('Python-only spellings are translated', () => {
  assert.is(compileLinkifierPattern('\\Aa\\Z').source, '^a$');
  assert.is(compileLinkifierPattern('[]x]').source, '[\\]x]');
  assert.is(compileLinkifierPattern('a{,3}').source, 'a{0,3}');
  assert.is(compileLinkifierPattern('a{x}').source, 'a\\{x\\}');
});

Compile('realistic patterns compile', () => {
  for (const p of [
    '(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)',
    '(?P<id>[A-Z][A-Z0-9]+-[0-9]+)',
    'RT #(?P<id>\\d{1,7})',
    '(?P<hash>[0-9a-f]{40})',
    'v(?P<version>\\d+(?:\\.\\d+){0,3})',
  ]) {
    assert.instance(compileLinkifierPattern(p), RegExp, p);
  }
});

Compile('invalid, unsupported and catastrophic patterns are refused with a message', () => {
  const bad: Array<[string, string]> = [
    ['', 'empty'],
    ['(?P<id>[0-9]+', 'missing )'],
    ['a)', 'unbalanced'],
    ['[abc', 'unterminated'],
    ['*a', 'Nothing to repeat'],
    ['(?P<a>x)(?P=a)', 'not supported'],
    ['(a)\\1', 'backreferences'],
    ['(?<=x)y', 'lookaround'],
    ['x(?!y)', 'lookaround'],
    ['(?x) a b', '(?x)'],
    ['(a+)+b', 'catastrophic'],
    ['(a*)*b', 'catastrophic'],
    ['(a|a)*b', 'catastrophic'],
    ['(?:\\w+\\s?)*$', 'catastrophic'],
    ['((ab)+)+', 'catastrophic'],
    ['(a+){2,100}', 'catastrophic'],
    ['a++', 'multiple repeat'],
    ['(?P<a>\\w+\\w+)', 'two long repetitions'],
    ['.*.*x', 'two long repetitions'],
    ['\\d+(?:x)?\\d*', 'two long repetitions'],
    ['a{1,100}b*', 'two long repetitions'],
    ['x'.repeat(1001), 'longer than'],
  ];
  for (const [pattern, why] of bad) {
    try {
      compileLinkifierPattern(pattern);
      assert.unreachable(`accepted ${pattern}`);
    } catch (e) {
      assert.instance(e, LinkifierPatternError, pattern);
      assert.ok((e as Error).message.startsWith('Bad regular expression: '), pattern);
      assert.ok((e as Error).message.includes(why), `${pattern}: ${(e as Error).message}`);
    }
  }
});

Compile.run();

const Check = suite('linkifiers: checking a submitted linkifier');

Check('a good linkifier passes', () => {
  assert.is(checkLinkifier('#(?P<id>[0-9]+)', 'https://example.com/issues/{id}'), null);
});

Check('each part is checked', () => {
  assert.match(checkLinkifier('(a+)+', 'https://x/{id}')!, /^Bad regular expression/);
  assert.match(checkLinkifier('#(?P<id>\\d+)', 'https://x/{id')!, /^Invalid URL template/);
  assert.is(checkLinkifier('#(?P<id>\\d+)', 'https://x/{ticket}'), 'Group "ticket" in URL template is not present in linkifier pattern.');
  assert.match(checkLinkifier('#(?P<id>\\d+)', 'javascript:alert({id})')!, /must produce/);
});

Check.run();

const Match = suite('linkifiers: matching text');

const issues = compileLinkifiers([{ id: 1, pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://x/i/{id}' }]);

Match('matches need a boundary before and no word character after', () => {
  assert.equal(findLinkifierMatches('#1 (#2) x#3 #4a #5.', issues), [
    { start: 0, end: 2, url: 'https://x/i/1' },
    { start: 4, end: 6, url: 'https://x/i/2' },
    { start: 16, end: 18, url: 'https://x/i/5' },
  ]);
});

Match('earlier linkifiers win overlaps; later ones fill the gaps', () => {
  const two = compileLinkifiers([
    { id: 1, pattern: 'PR#(?P<id>\\d+)', urlTemplate: 'https://x/pr/{id}' },
    { id: 2, pattern: '(?P<p>[A-Z]+)#(?P<id>\\d+)', urlTemplate: 'https://x/{p}/{id}' },
  ]);
  assert.equal(
    findLinkifierMatches('PR#1 AB#2', two).map((m) => m.url),
    ['https://x/pr/1', 'https://x/AB/2'],
  );
});

Match('a linkifier whose pattern no longer compiles is skipped', () => {
  assert.is(compileLinkifiers([{ id: 1, pattern: '(a+)+', urlTemplate: 'https://x/' }]).length, 0);
});

Match('a hostile pattern that slips through the checks finds nothing where it would backtrack without end', () => {
  const slow = compileLinkifiers([{ id: 1, pattern: '(?P<a>.+x.+x.+)!', urlTemplate: 'https://x/{a}' }]);
  assert.is(slow.length, 1);
  for (const text of ['x '.repeat(5000), '( '.repeat(5000), `${'x'.repeat(127)} `.repeat(80)]) {
    assert.equal(findLinkifierMatches(text, slow), []);
  }
});

Match('a match never cuts an astral character in two', () => {
  // The patterns run on UTF-16 code units; "." would otherwise take half of an emoji.
  const any = compileLinkifiers([{ id: 1, pattern: '(?P<c>.)', urlTemplate: 'https://x/{c}' }]);
  assert.equal(findLinkifierMatches('\u{1F600}', any), []);
  const two = compileLinkifiers([{ id: 1, pattern: '(?P<a>.)(?P<b>.)!', urlTemplate: 'https://x/{a}/{b}' }]);
  assert.equal(findLinkifierMatches('\u{1F600}!', two), []);
  // Whole astral characters still match where the pattern takes both halves.
  const pair = compileLinkifiers([{ id: 1, pattern: '..#(?P<id>[0-9]+)', urlTemplate: 'https://x/{id}' }]);
  assert.equal(findLinkifierMatches('\u{1F600}#7', pair), [{ start: 0, end: 4, url: 'https://x/7' }]);
});

Match('an exhausted budget stops matching', () => {
  assert.equal(findLinkifierMatches('#1 #2', issues, new MatchBudget(-1)), []);
  assert.is(findLinkifierMatches('#1 #2', issues, new MatchBudget()).length, 2);
});

Match.run();

const Topics = suite('linkifiers: topic_links');

Topics('linkifier matches and bare URLs, in order of appearance', () => {
  const linkifiers = [{ id: 1, pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://x/i/{id}' }];
  assert.equal(topicLinks('see https://a.example/x?y=1, then #12 (and https://b.example/p).', linkifiers), [
    { text: 'https://a.example/x?y=1', url: 'https://a.example/x?y=1' },
    { text: '#12', url: 'https://x/i/12' },
    { text: 'https://b.example/p', url: 'https://b.example/p' },
  ]);
});

Topics('no links, no entries', () => {
  assert.equal(topicLinks('lunch plans', []), []);
});

Topics.run();
