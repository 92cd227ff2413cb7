import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyMarkdownContext, renderMarkdown } from '../../src/domain/markdown/index.js';
import { isAllowedLinkUrl, uploadPathIdOf } from '../../src/domain/markdown/link-policy.js';
import { testContext } from '../helpers/markdown-context.js';

const render = (content: string) => renderMarkdown(content, testContext());
const html = (content: string): string => render(content).html;

const Links = suite('markdown: links');

Links('[text](url) and bare URLs', () => {
  const r = render('[docs](https://example.com/a?b=1&c=2) and https://example.org/x.');
  assert.is(
    r.html,
    '<p><a href="https://example.com/a?b=1&amp;c=2">docs</a> and <a href="https://example.org/x">https://example.org/x</a>.</p>',
  );
  assert.ok(r.hasLink);
  assert.equal(r.links, ['https://example.com/a?b=1&c=2', 'https://example.org/x']);
});

Links('mailto and relative links are allowed', () => {
  assert.is(html('[m](mailto:a@example.com) [r](/help) [h](#narrow)'), '<p><a href="mailto:a@example.com">m</a> <a href="/help">r</a> <a href="#narrow">h</a></p>');
});

Links('other schemes render as text', () => {
  for (const url of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,x', 'vbscript:x', 'file:///etc/passwd', 'ftp://x.example']) {
    const r = render(`[x](${url})`);
    assert.not.match(r.html, '<a', url);
    assert.not.ok(r.hasLink, url);
  }
  assert.not.match(html('ftp://files.example.com/x'), '<a');
});

Links('the URL policy refuses anything that could be read as a scheme', () => {
  const allowed = ['https://x', 'HTTP://x', 'mailto:a@b', '/a:b', '?q=a:b', '#a:b', 'page', '//cdn.example/x'];
  const refused = ['javascript:x', ' javascript:x', '\u0001javascript:x', 'java\tscript:x', 'java%09script:x', 'data:x', 'x:y'];
  for (const u of allowed) assert.ok(isAllowedLinkUrl(u), u);
  for (const u of refused) assert.not.ok(isAllowedLinkUrl(u), u);
});

Links('link text is Markdown, and attributes are escaped', () => {
  assert.is(html('[**b** "q"](/x?a="b")'), '<p><a href="/x?a=%22b%22"><strong>b</strong> &quot;q&quot;</a></p>');
});

Links('image syntax is not supported: it renders as ! and a link', () => {
  const r = render('![alt](https://evil.example/x.png)');
  assert.is(r.html, '<p>!<a href="https://evil.example/x.png">alt</a></p>');
  assert.not.ok(r.hasImage);
});

Links.run();

const Uploads = suite('markdown: uploaded files');

Uploads('a link to an uploaded image gets an inline preview after its paragraph', () => {
  const r = render('look [cat.png](/user_uploads/2/ab/cat.png) here');
  assert.is(
    r.html,
    '<p>look <a href="/user_uploads/2/ab/cat.png">cat.png</a> here</p>\n' +
      '<div class="message_inline_image"><a href="/user_uploads/2/ab/cat.png" title="cat.png"><img src="/user_uploads/2/ab/cat.png"></a></div>',
  );
  assert.ok(r.hasImage);
  assert.ok(r.hasAttachment);
  assert.equal(r.uploadPathIds, ['2/ab/cat.png']);
});

Uploads('other files are attachments without preview', () => {
  const r = render('[report.pdf](/user_uploads/2/cd/report.pdf)');
  assert.is(r.html, '<p><a href="/user_uploads/2/cd/report.pdf">report.pdf</a></p>');
  assert.not.ok(r.hasImage);
  assert.ok(r.hasAttachment);
  assert.equal(r.uploadPathIds, ['2/cd/report.pdf']);
});

Uploads('absolute links to /user_uploads/ on any host count, without preview', () => {
  const r = render('https://chat.example.com/user_uploads/2/ef/a%20b.png?x=1 and [again](https://chat.example.com/user_uploads/2/ef/a%20b.png)');
  assert.equal(r.uploadPathIds, ['2/ef/a b.png']);
  assert.not.ok(r.hasImage);
  assert.not.match(r.html, 'message_inline_image');
});

Uploads('each image is previewed once; the title falls back to the file name', () => {
  const r = render('[](/user_uploads/2/x/dog.jpg) [dog](/user_uploads/2/x/dog.jpg)');
  assert.is(r.html.match(/message_inline_image/g)?.length, 1);
  assert.match(r.html, 'title="dog.jpg"');
});

Uploads('uploadPathIdOf', () => {
  assert.is(uploadPathIdOf('/user_uploads/1/2/f.txt#x'), '1/2/f.txt');
  assert.is(uploadPathIdOf('https://h/user_uploads/1/2/f.txt'), '1/2/f.txt');
  assert.is(uploadPathIdOf('/user_uploads/'), null);
  assert.is(uploadPathIdOf('/other/user_uploads/1'), null);
  assert.is(uploadPathIdOf('https://h/x?u=/user_uploads/1'), null);
});

Uploads.run();

const Linkifiers = suite('markdown: linkifiers');

Linkifiers('matches in text become links', () => {
  const r = render('fixes #123, see (#7)');
  assert.is(
    r.html,
    '<p>fixes <a href="https://tracker.example.com/issues/123">#123</a>, see (<a href="https://tracker.example.com/issues/7">#7</a>)</p>',
  );
  assert.equal(r.links, ['https://tracker.example.com/issues/123', 'https://tracker.example.com/issues/7']);
});

Linkifiers('not in code, not inside links, not mid-word', () => {
  assert.is(
    html('`#1` [see #2](/x) https://example.com/#3 a#4'),
    '<p><code>#1</code> <a href="/x">see #2</a> <a href="https://example.com/#3">https://example.com/#3</a> a#4</p>',
  );
  assert.is(html('```\n#5\n```'), '<div class="codehilite"><pre><span></span><code>#5\n</code></pre></div>');
});

Linkifiers('a linkifier producing an unsafe URL is ignored', () => {
  const ctx = testContext({ linkifiers: [{ id: 1, pattern: '!(?P<x>\\w+)', urlTemplate: 'javascript:{x}' }] });
  assert.is(renderMarkdown('!abc', ctx).html, '<p>!abc</p>');
});

Linkifiers('an empty context links nothing', () => {
  assert.is(renderMarkdown('#123 @**Bob**', emptyMarkdownContext).html, '<p>#123 @**Bob**</p>');
});

Linkifiers.run();
