import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { htmlDiff } from '../../src/domain/html-diff.js';
import { emptyMarkdownContext, renderMarkdown } from '../../src/domain/markdown/index.js';

const ins = (text: string): string => `<span class="highlight_text_inserted">${text}</span>`;
const del = (text: string): string => `<span class="highlight_text_deleted">${text}</span>`;

const Diff = suite('html-diff: marking edits');

Diff('a replaced word shows the old one deleted and the new one inserted', () => {
  assert.is(htmlDiff('<p>Hello!</p>', '<p>Howdy!</p>'), `<div><p>${del('Hello!')}${ins('Howdy!')}</p></div>`);
});

Diff('unchanged text is left as it is', () => {
  assert.is(htmlDiff('<p>same</p>', '<p>same</p>'), '<div><p>same</p></div>');
});

Diff('insertions and deletions between kept words', () => {
  assert.is(
    htmlDiff('<p>the quick brown fox</p>', '<p>the slow brown fox jumps</p>'),
    `<div><p>the ${del('quick')}${ins('slow')} brown fox${ins(' jumps')}</p></div>`,
  );
});

Diff('an added paragraph keeps its tags outside the marks', () => {
  assert.is(
    htmlDiff('<p>a</p>', '<p>a</p>\n<p>b c</p>'),
    `<div><p>a</p>\n<p>${ins('b c')}</p></div>`,
  );
});

Diff('removed tags are dropped and their text shown deleted in place', () => {
  assert.is(htmlDiff('<p>a <em>gone</em> b</p>', '<p>a b</p>'), `<div><p>a ${del('gone')} b</p></div>`);
});

Diff('marks never span a tag; whitespace alone is not marked', () => {
  assert.is(
    htmlDiff('<p>x</p>', '<p>x <strong>new bold</strong> tail</p>'),
    `<div><p>x <strong>${ins('new bold')}</strong>${ins(' tail')}</p></div>`,
  );
});

Diff('attributes are compared as part of their tag', () => {
  assert.is(
    htmlDiff('<p><a href="/a">link</a></p>', '<p><a href="/b">link</a></p>'),
    '<div><p><a href="/b">link</a></p></div>',
  );
});

Diff('from or to nothing', () => {
  assert.is(htmlDiff('', '<p>x</p>'), `<div><p>${ins('x')}</p></div>`);
  assert.is(htmlDiff('<p>x</p>', ''), `<div>${del('x')}</div>`);
  assert.is(htmlDiff('', ''), '<div></div>');
});

Diff.run();

// Tag structure: the output's tags, in order, are exactly the new rendering's.
const tagsOf = (html: string): string[] => (html.match(/<[^>]*>/g) ?? []).filter((t) => !t.includes('highlight_text') && t !== '</span>' && t !== '<div>' && t !== '</div>');

const Structure = suite('html-diff: structure and cost');

Structure('the new rendering\'s tags survive any edit, in order', () => {
  const render = (md: string) => renderMarkdown(md, emptyMarkdownContext).html;
  const pairs: Array<[string, string]> = [
    ['a *b* c', '**a** b `c`'],
    ['- one\n- two', '1. one\n2. two\n3. three'],
    ['> quoted\n\ntext', 'text\n\n> quoted more'],
    ['| a |\n|---|\n| 1 |', 'plain'],
    ['```\ncode\n```', 'code'],
  ];
  for (const [before, after] of pairs) {
    const newHtml = render(after);
    assert.equal(tagsOf(htmlDiff(render(before), newHtml)), tagsOf(newHtml), `${before} → ${after}`);
  }
});

Structure('large inputs fall back to a coarse diff', () => {
  const words = (seed: number) => Array.from({ length: 30_000 }, (_, i) => `w${(i * seed) % 10_007}`).join(' ');
  const out = htmlDiff(`<p>${words(7919)}</p>`, `<p>${words(104_729)}</p>`);
  assert.is(out.match(/highlight_text_deleted/g)?.length, 1);
  assert.is(out.match(/highlight_text_inserted/g)?.length, 1);
  assert.ok(out.startsWith('<div><p>w0 '), out.slice(0, 80));
});

Structure('scattered edits in a full-size message are found word by word', () => {
  const words = Array.from({ length: 1500 }, (_, i) => `w${i}`);
  const edited = words.map((w, i) => (i % 100 === 0 ? 'CHANGED' : w));
  const out = htmlDiff(`<p>${words.join(' ')}</p>`, `<p>${edited.join(' ')}</p>`);
  assert.is(out.match(/highlight_text_inserted">CHANGED</g)?.length, 15);
  assert.is(out.match(/highlight_text_deleted">w\d+</g)?.length, 15);
});

Structure.run();
