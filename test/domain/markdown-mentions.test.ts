import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderMarkdown } from '../../src/domain/markdown/index.js';
import { testContext } from '../helpers/markdown-context.js';

const render = (content: string) => renderMarkdown(content, testContext());
const html = (content: string): string => render(content).html;

const Users = suite('markdown: user mentions');

Users('@**Full Name** mentions by the name on record, case-insensitively', () => {
  const r = render('hi @**alice smith**!');
  assert.is(r.html, '<p>hi <span class="user-mention" data-user-id="10">@Alice Smith</span>!</p>');
  assert.equal(r.mentionedUserIds, [10]);
});

Users('@**Name|id** lets the id decide between users sharing a name', () => {
  const r = render('@**Sam|13** and @**Sam|12**');
  assert.is(
    r.html,
    '<p><span class="user-mention" data-user-id="13">@Sam</span> and <span class="user-mention" data-user-id="12">@Sam</span></p>',
  );
  assert.equal(r.mentionedUserIds, [13, 12]);
});

Users('@**|id** names the user by id alone', () => {
  assert.is(html('@**|11**'), '<p><span class="user-mention" data-user-id="11">@Bob</span></p>');
});

Users('a name that does not belong to the id mentions nobody', () => {
  const r = render('@**Bob|10**');
  assert.is(r.html, '<p>@**Bob|10**</p>');
  assert.equal(r.mentionedUserIds, []);
});

Users('silent mentions render without @ and notify nobody', () => {
  const r = render('@_**Bob**');
  assert.is(r.html, '<p><span class="user-mention silent" data-user-id="11">Bob</span></p>');
  assert.equal(r.mentionedUserIds, []);
});

Users('unknown, deactivated and malformed mentions stay literal text', () => {
  for (const text of ['@**Nobody**', '@**Gone Person**', '@**|99**', '@****', '@**Bob', '@_**Nobody**']) {
    const r = render(text);
    assert.is(r.html, `<p>${text}</p>`, text);
    assert.equal(r.mentionedUserIds, [], text);
  }
});

Users('repeated mentions are listed once', () => {
  assert.equal(render('@**Bob** @**bob** @**|11**').mentionedUserIds, [11]);
});

Users('mentions count only at the start of a word, and never in code', () => {
  assert.is(html('mail@**Bob**'), '<p>mail@<strong>Bob</strong></p>');
  assert.is(html('(@**Bob**)'), '<p>(<span class="user-mention" data-user-id="11">@Bob</span>)</p>');
  const r = render('`@**Bob**`\n```\n@**Alice Smith**\n```');
  assert.equal(r.mentionedUserIds, []);
});

Users('names are escaped in the output', () => {
  assert.is(
    html('@**Eve "<script>" O\'Neil**'),
    '<p><span class="user-mention" data-user-id="15">@Eve &quot;&lt;script&gt;&quot; O\'Neil</span></p>',
  );
});

Users.run();

const Wildcards = suite('markdown: wildcard mentions');

Wildcards('channel wildcards keep the typed word and set streamWildcard', () => {
  for (const word of ['all', 'everyone', 'channel', 'stream']) {
    const r = render(`@**${word}**`);
    assert.is(r.html, `<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@${word}</span></p>`);
    assert.ok(r.streamWildcard, word);
    assert.not.ok(r.topicWildcard, word);
  }
});

Wildcards('@**topic** sets topicWildcard', () => {
  const r = render('@**topic**');
  assert.is(r.html, '<p><span class="topic-mention">@topic</span></p>');
  assert.ok(r.topicWildcard);
  assert.not.ok(r.streamWildcard);
});

Wildcards('silent wildcards render silently and set no flag', () => {
  const all = render('@_**all**');
  assert.is(all.html, '<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span></p>');
  assert.not.ok(all.streamWildcard);
  const topic = render('@_**topic**');
  assert.is(topic.html, '<p><span class="topic-mention silent">topic</span></p>');
  assert.not.ok(topic.topicWildcard);
});

Wildcards.run();

const Quoted = suite('markdown: mentions in quotes');

Quoted('mentions inside quotes are silent, so quoting does not notify again', () => {
  const r = render('> @**Bob** said @**all** to @*backend*\n\n```quote\n@**topic**\n```\n@**Alice Smith**');
  assert.is(
    r.html,
    '<blockquote>\n<p><span class="user-mention silent" data-user-id="11">Bob</span> said ' +
      '<span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span> to ' +
      '<span class="user-group-mention silent" data-user-group-id="5">backend</span></p>\n</blockquote>\n' +
      '<blockquote>\n<p><span class="topic-mention silent">topic</span></p>\n</blockquote>\n' +
      '<p><span class="user-mention" data-user-id="10">@Alice Smith</span></p>',
  );
  assert.equal(r.mentionedUserIds, [10]);
  assert.equal(r.mentionedGroupIds, []);
  assert.not.ok(r.streamWildcard);
  assert.not.ok(r.topicWildcard);
});

Quoted('mentions inside spoilers still notify', () => {
  const r = render('```spoiler x\n@**Bob**\n```');
  assert.equal(r.mentionedUserIds, [11]);
});

Quoted.run();

const Groups = suite('markdown: group mentions');

Groups('@*group* mentions a group by its name on record', () => {
  const r = render('@*Design Team* please');
  assert.is(r.html, '<p><span class="user-group-mention" data-user-group-id="6">@design team</span> please</p>');
  assert.equal(r.mentionedGroupIds, [6]);
  assert.equal(r.mentionedUserIds, []);
});

Groups('silent group mentions notify nobody', () => {
  const r = render('@_*backend*');
  assert.is(r.html, '<p><span class="user-group-mention silent" data-user-group-id="5">backend</span></p>');
  assert.equal(r.mentionedGroupIds, []);
});

Groups('unknown groups stay literal', () => {
  const r = render('@*nobody*');
  assert.is(r.html, '<p>@*nobody*</p>');
  assert.equal(r.mentionedGroupIds, []);
});

Groups.run();

const Channels = suite('markdown: channel, topic and message links');

Channels('#**channel**', () => {
  assert.is(html('#**general**'), '<p><a class="stream" data-stream-id="7" href="/#narrow/channel/7-general">#general</a></p>');
});

Channels('#**channel>topic** encodes the topic reversibly', () => {
  assert.is(
    html('#**dev team>lunch plans.v2**'),
    '<p><a class="stream-topic" data-stream-id="8" href="/#narrow/channel/8-dev-team/topic/lunch.20plans.2Ev2">#dev team &gt; lunch plans.v2</a></p>',
  );
});

Channels('#**channel>topic@id** links to a message', () => {
  assert.is(
    html('#**general>hi@123**'),
    '<p><a class="message-link" href="/#narrow/channel/7-general/topic/hi/near/123">#general &gt; hi @ \u{1f4ac}</a></p>',
  );
});

Channels('unknown channels stay literal', () => {
  assert.is(html('#**secret** #**secret>x**'), '<p>#**secret** #**secret&gt;x**</p>');
});

Channels('channel names are escaped in text and attributes', () => {
  assert.is(
    html('#**x"y<z&>t "q"**'),
    '<p><a class="stream-topic" data-stream-id="9" href="/#narrow/channel/9-x.22y.3Cz.26/topic/t.20.22q.22">' +
      '#x&quot;y&lt;z&amp; &gt; t &quot;q&quot;</a></p>',
  );
});

Channels.run();

const Emoji = suite('markdown: emoji');

Emoji(':name: for Unicode emoji, labelled with spaces for underscores', () => {
  assert.is(
    html(':thumbs_up: :+1:'),
    '<p><span aria-label="thumbs up" class="emoji emoji-1f44d" role="img" title="thumbs up">:thumbs_up:</span> ' +
      '<span aria-label="+1" class="emoji emoji-1f44d" role="img" title="+1">:+1:</span></p>',
  );
});

Emoji('realm emoji render as images and shadow Unicode names', () => {
  assert.is(
    html(':parrot:'),
    '<p><img alt=":parrot:" class="emoji" src="/user_avatars/2/emoji/images/3.png" title="parrot"></p>',
  );
  const shadowing = testContext({ realmEmoji: (n) => (n === 'smile' ? { id: '4', name: 'smile', url: '/e/4.png' } : null) });
  assert.is(renderMarkdown(':smile:', shadowing).html, '<p><img alt=":smile:" class="emoji" src="/e/4.png" title="smile"></p>');
});

Emoji('emoji characters become the same span, named canonically', () => {
  assert.is(
    html('ok 👍🏽 🐙'),
    '<p>ok <span aria-label="thumbs up" class="emoji emoji-1f44d-1f3fd" role="img" title="thumbs up">:thumbs_up:</span> ' +
      '<span aria-label="octopus" class="emoji emoji-1f419" role="img" title="octopus">:octopus:</span></p>',
  );
});

Emoji('text-style symbols, unknown names, times and code are left alone', () => {
  assert.is(html('© ™ :nope: 12:30:45 `:smile:`'), '<p>© ™ :nope: 12:30:45 <code>:smile:</code></p>');
});

Emoji('a realm emoji with an unsafe URL is not rendered', () => {
  const ctx = testContext({ realmEmoji: () => ({ id: '1', name: 'x', url: 'javascript:alert(1)' }) });
  assert.is(renderMarkdown(':x:', ctx).html, '<p>:x:</p>');
});

Emoji.run();
