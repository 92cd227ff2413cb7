// Hostile input: the renderer must never pass HTML through, never emit a dangerous URL or a
// malformed attribute, and never throw, on anything a client can send.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderMarkdown } from '../../src/domain/markdown/index.js';
import { isAllowedLinkUrl } from '../../src/domain/markdown/link-policy.js';
import { testContext } from '../helpers/markdown-context.js';
import { hostileContext, hostileInputs } from '../helpers/hostile-markdown.js';

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

// Speed is measured by `npm run bench -- hostile` against ordinary input of the same size, not
// here (a wall-clock bound in a unit test fails on a busy machine); a renderer that went
// super-linear on one of these would still fail the suite by the runner's per-file timeout.
const Hostile = suite('markdown: hostile input is rendered safely');

for (const [label, input] of hostileInputs) {
  Hostile(label, () => {
    const result = renderMarkdown(input, hostileContext);
    assert.equal(safetyProblems(result.html), []);
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

const Full = suite('markdown: a full-size ordinary message');

Full('a 10,000-character message with every construct renders completely', () => {
  const unit =
    'Hello @**Alice Smith**, see #**general>lunch plans** and #123 :smile: 👍 **bold** *it* ~~s~~ `code` ' +
    'https://example.com/path?q=1 [docs](/help) $$x^2$$\n> quoted\n- item\n\n```python\nprint(1)\n```\n';
  const message = unit.repeat(Math.ceil(10_000 / unit.length)).slice(0, 10_000);
  const r = renderMarkdown(message, testContext());
  assert.equal(r.mentionedUserIds, [10]);
  assert.is(r.html.match(/class="user-mention"/g)?.length, message.match(/@\*\*Alice Smith\*\*/g)?.length);
});

Full.run();
