import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyMarkdownContext, renderMarkdown } from '../../src/domain/markdown/index.js';

const html = (content: string): string => renderMarkdown(content, emptyMarkdownContext).html;

const Inline = suite('markdown: paragraphs and inline formatting');

Inline('a single newline is a line break; a blank line starts a paragraph', () => {
  assert.is(html('one\ntwo\n\nthree'), '<p>one<br>\ntwo</p>\n<p>three</p>');
});

Inline('emphasis, strong, strikethrough and inline code', () => {
  assert.is(
    html('*it* **bold** ~~gone~~ `a <b>`'),
    '<p><em>it</em> <strong>bold</strong> <del>gone</del> <code>a &lt;b&gt;</code></p>',
  );
});

Inline('an empty message renders as nothing', () => {
  assert.is(html(''), '');
  assert.is(html('   \n  '), '');
});

Inline('raw HTML is escaped, never passed through', () => {
  assert.is(html('<b onclick="x()">hi</b>'), '<p>&lt;b onclick=&quot;x()&quot;&gt;hi&lt;/b&gt;</p>');
  assert.is(html('<div>\nblock\n</div>'), '<p>&lt;div&gt;<br>\nblock<br>\n&lt;/div&gt;</p>');
});

Inline.run();

const Code = suite('markdown: fenced code blocks');

Code('a language is named by its display name; the code is escaped, not highlighted', () => {
  assert.is(
    html('```python\nprint("<hi>")\n```'),
    '<div class="codehilite" data-code-language="Python"><pre><span></span><code>print(&quot;&lt;hi&gt;&quot;)\n</code></pre></div>',
  );
});

Code('an unknown language is kept as typed, escaped', () => {
  assert.is(
    html('```x"y\nz\n```'),
    '<div class="codehilite" data-code-language="x&quot;y"><pre><span></span><code>z\n</code></pre></div>',
  );
});

Code('no language means no attribute; tildes work too', () => {
  assert.is(html('~~~\n*not emphasis*\n~~~'), '<div class="codehilite"><pre><span></span><code>*not emphasis*\n</code></pre></div>');
});

Code('an unterminated fence runs to the end of the message', () => {
  assert.is(html('```js\na\nb'), '<div class="codehilite" data-code-language="JavaScript"><pre><span></span><code>a\nb\n</code></pre></div>');
});

Code('indentation does not make code (indented code blocks are off)', () => {
  assert.is(html('    indented'), '<p>indented</p>');
});

Code.run();

const Quotes = suite('markdown: quotes');

Quotes('> quotes, nested', () => {
  assert.is(html('> a\n>> b'), '<blockquote>\n<p>a</p>\n<blockquote>\n<p>b</p>\n</blockquote>\n</blockquote>');
});

Quotes('```quote holds Markdown', () => {
  assert.is(html('```quote\nquoted **b**\n```\nafter'), '<blockquote>\n<p>quoted <strong>b</strong></p>\n</blockquote>\n<p>after</p>');
});

Quotes('```quote may hold a code fence, which does not end the quote', () => {
  assert.is(
    html('```quote\nsee:\n```py\nx = 1\n```\nend\n```\nafter'),
    '<blockquote>\n<p>see:</p>\n<div class="codehilite" data-code-language="Python"><pre><span></span><code>x = 1\n</code></pre></div>\n<p>end</p>\n</blockquote>\n<p>after</p>',
  );
});

Quotes('a longer fence closes only with a fence as long; a shorter bare one opens code', () => {
  assert.is(
    html('````quote\na\n```\nb\n```\n````\nafter'),
    '<blockquote>\n<p>a</p>\n<div class="codehilite"><pre><span></span><code>b\n</code></pre></div>\n</blockquote>\n<p>after</p>',
  );
});

Quotes('an unterminated ```quote runs to the end of the message', () => {
  assert.is(html('```quote\na'), '<blockquote>\n<p>a</p>\n</blockquote>');
});

Quotes.run();

const Spoilers = suite('markdown: spoilers');

Spoilers('```spoiler with a Markdown header', () => {
  assert.is(
    html('```spoiler Secret *stuff*\nhidden\n```'),
    '<div class="spoiler-block"><div class="spoiler-header">\n<p>Secret <em>stuff</em></p>\n</div>' +
      '<div class="spoiler-content" aria-hidden="true">\n<p>hidden</p>\n</div></div>',
  );
});

Spoilers('a spoiler without a header has an empty header', () => {
  assert.is(
    html('```spoiler\nhidden\n```'),
    '<div class="spoiler-block"><div class="spoiler-header">\n</div><div class="spoiler-content" aria-hidden="true">\n<p>hidden</p>\n</div></div>',
  );
});

Spoilers.run();

const Math = suite('markdown: TeX is shown as escaped source');

Math('inline $$…$$', () => {
  assert.is(html('so $$a<b$$ costs $5'), '<p>so <span class="tex-error">$$a&lt;b$$</span> costs $5</p>');
});

Math('```math block', () => {
  assert.is(html('```math\n\\frac{1}{2} < x\n```'), '<p><span class="tex-error">\\frac{1}{2} &lt; x</span></p>');
});

Math('$$ inside code is code', () => {
  assert.is(html('`$$x$$`'), '<p><code>$$x$$</code></p>');
});

Math.run();

const Structure = suite('markdown: lists, headings, tables');

Structure('bulleted and numbered lists', () => {
  assert.is(html('- a\n- b\n\n1. x\n2. y'), '<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n<ol>\n<li>x</li>\n<li>y</li>\n</ol>');
});

Structure('# headings; setext underlines are plain text', () => {
  assert.is(html('# One\n## Two'), '<h1>One</h1>\n<h2>Two</h2>');
  assert.is(html('text\n==='), '<p>text<br>\n===</p>');
});

Structure('tables with alignment', () => {
  assert.is(
    html('| a | b |\n|---|--:|\n| 1 | 2 |'),
    '<table>\n<thead>\n<tr>\n<th>a</th>\n<th style="text-align:right">b</th>\n</tr>\n</thead>\n' +
      '<tbody>\n<tr>\n<td>1</td>\n<td style="text-align:right">2</td>\n</tr>\n</tbody>\n</table>',
  );
});

Structure('reference-style definitions stay visible', () => {
  assert.is(html('[1]: /x'), '<p>[1]: /x</p>');
});

Structure.run();
