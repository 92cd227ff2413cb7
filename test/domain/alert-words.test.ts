import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { matchesAlertWords } from '../../src/domain/alert-words.js';

const Words = suite('alert-words: whole words and phrases, any case');

Words('a word matches whole, in any case', () => {
  assert.ok(matchesAlertWords('The Deploy is done', ['deploy']));
  assert.ok(matchesAlertWords('deploy!', ['DEPLOY']));
  assert.ok(matchesAlertWords('(deploy)', ['deploy']));
  assert.not.ok(matchesAlertWords('redeployed', ['deploy']));
  assert.not.ok(matchesAlertWords('deploy_now', ['deploy']));
});

Words('phrases and words with punctuation match as written', () => {
  assert.ok(matchesAlertWords('we need a code review soon', ['code review']));
  assert.not.ok(matchesAlertWords('code  review', ['code review']));
  assert.ok(matchesAlertWords('I like C++ a lot', ['c++']));
  assert.ok(matchesAlertWords('ping @ops now', ['@ops']));
});

Words('letters beyond ASCII count as word characters', () => {
  assert.ok(matchesAlertWords('Größe zählt', ['größe']));
  assert.not.ok(matchesAlertWords('übergröße', ['größe']));
  assert.ok(matchesAlertWords('naïve café', ['café']));
});

Words('a later occurrence can match when an earlier one is inside a word', () => {
  assert.ok(matchesAlertWords('redeploy, then deploy', ['deploy']));
});

Words('empty and blank words never match', () => {
  assert.not.ok(matchesAlertWords('anything', []));
  assert.not.ok(matchesAlertWords('anything', ['', '  ']));
});

Words.run();

const Code = suite('alert-words: code does not count');

Code('inline code spans are skipped', () => {
  assert.not.ok(matchesAlertWords('run `deploy` now', ['deploy']));
  assert.not.ok(matchesAlertWords('run ``a ` deploy`` now', ['deploy']));
  assert.ok(matchesAlertWords('run `x` deploy `y`', ['deploy']));
  assert.ok(matchesAlertWords('an unclosed `deploy', ['deploy']));
});

Code('fenced code blocks are skipped, until their closing fence', () => {
  assert.not.ok(matchesAlertWords('```\ndeploy\n```', ['deploy']));
  assert.not.ok(matchesAlertWords('~~~~sh\ndeploy\n~~~\n~~~~', ['deploy']));
  assert.ok(matchesAlertWords('```\nx\n```\ndeploy', ['deploy']));
  assert.not.ok(matchesAlertWords('```\nunterminated\ndeploy', ['deploy']));
});

Code('quote and spoiler fences hold prose, which counts', () => {
  assert.ok(matchesAlertWords('```quote\ndeploy\n```', ['deploy']));
  assert.ok(matchesAlertWords('```spoiler title\ndeploy\n```', ['deploy']));
});

Code('a long line of backticks is no code span', () => {
  assert.not.ok(matchesAlertWords('`'.repeat(10_000) + ' x ' + '` `` '.repeat(2_000), ['deploy']));
  assert.ok(matchesAlertWords('`'.repeat(10_000) + ' deploy ' + '` `` '.repeat(2_000), ['deploy']));
});

Code.run();
