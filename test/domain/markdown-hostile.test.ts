// Hostile input: the renderer must never pass HTML through, never emit a dangerous URL or a
// malformed attribute, never throw, and finish quickly on anything a client can send.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderMarkdown, type MarkdownContext } from '../../src/domain/markdown/index.js';
import { isAllowedLinkUrl } from '../../src/domain/markdown/link-policy.js';
import { testContext } from '../helpers/markdown-context.js';

const evil = '"><img src=x onerror=alert(1)>';

// A realm whose every name is an injection attempt.
const hostileContext: MarkdownContext = testContext({
  userByName: (name) => (name === 'x' ? { id: 1, fullName: evil } : null),
  groupByName: (name) => (name === 'g' ? { id: 2, name: evil } : null),
  channelByName: (name) => (name === 'c' ? { id: 3, name: evil } : null),
  realmEmoji: (name) => (name === 'e' ? { id: '4', name: evil, url: `/e.png${evil}` } : null),
  linkifiers: [
    { id: 1, pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://x.example/{id}' },
    { id: 2, pattern: '!(?P<s>\\S+)', urlTemplate: 'https://x.example/{+s}' },
  ],
});

const big = (unit: string, size = 100_000): string => unit.repeat(Math.ceil(size / unit.length));

const hostileInputs: Array<[string, string]> = [
  ['script tag', '<script>alert(1)</script>'],
  ['html block', '<div onclick="alert(1)">\n<script>x</script>\n</div>'],
  ['javascript link', '[x](javascript:alert(1))'],
  ['javascript autolink', '<javascript:alert(1)>'],
  ['entity-encoded scheme', '[x](&#106;avascript:alert(1)) [y](java&#x09;script:alert(1))'],
  ['spaced scheme', '[x]( javascript:alert(1))'],
  ['data link', '[x](data:text/html;base64,PHNjcmlwdD4=)'],
  ['attribute breakout in link', '[x](https://a.example/" onmouseover="alert(1))'],
  ['attribute breakout in title', '[x](https://a.example/ "t\\" onmouseover=\\"alert(1)")'],
  ['bare onmouseover', '"onmouseover=alert(1) \'onfocus=x'],
  ['hostile names', '@**x** @_**x** @*g* @_*g* #**c** #**c>t** #**c>t@1** :e:'],
  ['hostile typed names', `@**${evil}** #**${evil}** @*${evil}* :${evil}:`],
  ['hostile topic', `#**c>${evil}**`],
  ['hostile code language', '```"><script>\nx\n```'],
  ['hostile spoiler header', `\`\`\`spoiler ${evil}\nx\n\`\`\``],
  ['hostile linkifier value', `!"onmouseover=alert(1) !javascript:alert(1) !${evil}`],
  ['nested quotes 1000 deep', '>'.repeat(1000) + ' deep'],
  ['nested quote lines', Array.from({ length: 1000 }, (_, i) => `${'>'.repeat(i + 1)} x`).join('\n')],
  ['nested lists 1000 deep', Array.from({ length: 1000 }, (_, i) => `${'  '.repeat(i)}- x`).join('\n')],
  ['nested quote fences', '```quote\n'.repeat(2000)],
  ['nested spoilers', '```spoiler a\n'.repeat(2000) + '```\n'.repeat(2000)],
  ['10,000 backticks', '`'.repeat(10_000)],
  ['backtick runs', big('`a``b```c', 20_000)],
  ['unterminated fence', '```\n' + big('x\n', 20_000)],
  ['many fences', big('```\na\n', 20_000)],
  ['stars', '*'.repeat(10_000)],
  ['emphasis ladder', big('*a _b ', 20_000)],
  ['brackets', '['.repeat(10_000)],
  ['link openers', big('[a](', 20_000)],
  ['mention openers', big('@**', 20_000)],
  ['group openers', big('@*', 20_000)],
  ['channel openers', big('#**', 20_000)],
  ['colons', ':'.repeat(20_000)],
  ['emoji name soup', big(':a', 20_000)],
  ['dollars', '$'.repeat(20_000)],
  ['angle brackets', '<'.repeat(20_000)],
  ['urls', big('http://a.example/', 20_000)],
  ['emoji characters', '👍🏽'.repeat(5_000)],
  ['wide table', `${'| a '.repeat(2_000)}|\n${'|---'.repeat(2_000)}|\n${'| b '.repeat(2_000)}|`],
  ['long table', '| a | b |\n|---|---|\n' + big('| x | y |\n', 20_000)],
  ['linkifier soup', big('#1 !x ', 20_000)],
  ['100 KB of everything', big('**@**x** #**c>t** :smile: 👍 [l](/user_uploads/1/a.png) `c` #12 https://a.example\n> q\n- l\n\n', 100_000)],
];

// Every tag the renderer writes: a name, then attributes that are all name="value" with no
// quote or angle bracket inside the value.
const WELL_FORMED_TAG = /^<\/?[a-z][a-z0-9]*(?: [a-z][a-z-]*="[^"<>]*")*>$/;
const URL_ATTRIBUTE = / (?:href|src)="([^"]*)"/g;

// What a browser reads in an attribute value: named and numeric character references decoded.
function unescapeAttribute(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#([0-9]+);?/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** What is wrong with the HTML, safety-wise; empty when nothing is. */
function safetyProblems(html: string): string[] {
  const problems: string[] = [];
  if (/<script/i.test(html)) problems.push('<script');
  for (const tag of html.match(/<[^>]*>?/g) ?? []) {
    if (!WELL_FORMED_TAG.test(tag)) problems.push(`malformed tag ${tag.slice(0, 80)}`);
    for (const [, name] of tag.matchAll(/ ([a-z-]+)="/g)) {
      if (name!.startsWith('on')) problems.push(`event handler in ${tag.slice(0, 80)}`);
    }
  }
  for (const [, value] of html.matchAll(URL_ATTRIBUTE)) {
    if (!isAllowedLinkUrl(unescapeAttribute(value!))) problems.push(`unsafe URL ${value}`);
  }
  return problems;
}

const Hostile = suite('markdown: hostile input is rendered safely and quickly');

// Timings below are of a warmed-up renderer, as in a running server: V8 runs the first few
// renders unoptimised, which says nothing about the cost of any particular input.
Hostile.before(() => {
  const ordinary = 'Hi @**Bob**, see #**general>lunch** #12 :smile: 👍 **b** `c` https://example.com\n> q\n- l\n\n';
  for (let i = 0; i < 10; i++) renderMarkdown(ordinary.repeat(100), hostileContext);
});

for (const [label, input] of hostileInputs) {
  Hostile(label, () => {
    const started = performance.now();
    const result = renderMarkdown(input, hostileContext);
    const elapsed = performance.now() - started;
    if (process.env['SHOW_TIMES']) console.log(label, Math.round(elapsed));
    assert.equal(safetyProblems(result.html), []);
    assert.ok(elapsed < 1000, `${label}: took ${Math.round(elapsed)} ms`);
  });
}

Hostile('the safety check itself catches what it must', () => {
  assert.equal(safetyProblems('<a href="javascript:alert(1)">x</a>'), ['unsafe URL javascript:alert(1)']);
  assert.equal(safetyProblems('<a href="&#106;avascript:x">x</a>'), ['unsafe URL &#106;avascript:x']);
  assert.equal(safetyProblems('<a href="x" onmouseover="y">x</a>'), ['event handler in <a href="x" onmouseover="y">']);
  assert.equal(safetyProblems('<span title="a"b">x</span>'), ['malformed tag <span title="a"b">']);
  assert.equal(safetyProblems('<script>'), ['<script']);
  assert.equal(safetyProblems('<p><a href="/x?a=&quot;b&quot;" title="onclick=x">x</a></p>'), []);
});

Hostile('hostile names come out escaped', () => {
  const { html } = renderMarkdown('@**x** #**c** :e:', hostileContext);
  assert.is(
    html,
    '<p><span class="user-mention" data-user-id="1">@&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</span> ' +
      '<a class="stream" data-stream-id="3" href="/#narrow/channel/3-.22.3E.3Cimg-src.3Dx-onerror.3Dalert.281.29.3E">' +
      '#&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</a> ' +
      '<img alt=":e:" class="emoji" src="/e.png&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" title="e"></p>',
  );
});

Hostile('a throwing context does not make the renderer throw', () => {
  const broken = testContext({
    userByName: () => {
      throw new Error('lookup failed');
    },
  });
  const r = renderMarkdown('hi @**Bob** <b>', broken);
  assert.is(r.html, '<p>hi @**Bob** &lt;b&gt;</p>');
  assert.equal(r.mentionedUserIds, []);
});

Hostile.run();

const Speed = suite('markdown: speed on a full-size ordinary message');

Speed('a 10,000-character message with every construct renders well under a second', () => {
  const unit =
    'Hello @**Alice Smith**, see #**general>lunch plans** and #123 :smile: 👍 **bold** *it* ~~s~~ `code` ' +
    'https://example.com/path?q=1 [docs](/help) $$x^2$$\n> quoted\n- item\n\n```python\nprint(1)\n```\n';
  const message = unit.repeat(Math.ceil(10_000 / unit.length)).slice(0, 10_000);
  renderMarkdown(message, testContext());
  const started = performance.now();
  const r = renderMarkdown(message, testContext());
  const elapsed = performance.now() - started;
  assert.equal(r.mentionedUserIds, [10]);
  assert.ok(elapsed < 1000, `took ${Math.round(elapsed)} ms`);
});

Speed.run();
