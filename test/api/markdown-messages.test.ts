// Markdown as messages and channel descriptions render it, against a real organization: user,
// silent, group and wildcard mentions, channel and topic links (never to channels the author
// cannot see), emoji, code, quotes, spoilers, uploads — and hostile input that must stay inert
// in content, names, topics and descriptions.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertSuccess } from '../helpers/assert.js';
import { castOf, createChannel, sendToChannel, type Cast } from '../helpers/messaging.js';
import { PNG, uploadFile } from '../helpers/people.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;

const render = async (u: TestUser, content: string) => assertSuccess(await u.post('/api/v1/messages/render', { content })).rendered as string;

/** No element or attribute that runs script. */
function assertInert(html: string): void {
  assert.not.match(html, /<(script|iframe|object|embed|style|svg|math|form|input|meta|link|base)\b/i, html);
  assert.not.match(html, /<[^>]*\son[a-z]+\s*=/i, html);
  assert.not.match(html, /(href|src)\s*=\s*"\s*(javascript|data|vbscript):/i, html);
}

const md = suite('rendering in an organization');
md.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  cast = await castOf(realm);
  await createChannel(cast.owner, 'design', { others: [cast.member] });
  await createChannel(cast.owner, 'secret plans', { invite_only: true });
});

md('mentions name real people and groups', async () => {
  const { member } = cast;
  const user = await render(member, 'Hi @**Ada Admin** and @_**Mo Moderator**');
  assert.match(user, new RegExp(`<span class="user-mention" data-user-id="${cast.admin.id}">@Ada Admin</span>`));
  assert.match(user, new RegExp(`<span class="user-mention silent" data-user-id="${cast.moderator.id}">Mo Moderator</span>`));
  const group = [...realm.handle.state.groups.values()].find((g) => g.name === 'role:moderators')!;
  assert.match(await render(member, `@*role:moderators*`), new RegExp(`data-user-group-id="${group.id}"`));
  assert.match(await render(member, '@**all**'), /user-mention channel-wildcard-mention/);
  assert.is(await render(member, '@**Nobody Here**'), '<p>@**Nobody Here**</p>');
});

md('a mention by name follows renames, new accounts and deactivation', async () => {
  const { member } = cast;
  const mention = (name: string) => render(member, `@**${name}**`);
  const newcomer = await realm.createUser({ name: 'Nell Newcomer' });
  assert.match(await mention('Nell Newcomer'), new RegExp(`data-user-id="${newcomer.id}"`));
  assertSuccess(await newcomer.patch('/api/v1/settings', { full_name: 'Nell Renamed' }));
  assert.is(await mention('Nell Newcomer'), '<p>@**Nell Newcomer**</p>');
  assert.match(await mention('nell renamed'), new RegExp(`data-user-id="${newcomer.id}">@Nell Renamed<`));
  await realm.handle.ask('user.setActive', { userId: newcomer.id, active: false, actorId: null });
  assert.is(await mention('Nell Renamed'), '<p>@**Nell Renamed**</p>');
});

md('channel and topic links only to channels the author can see', async () => {
  const { member, owner } = cast;
  const id = realm.handle.state.channels.byName('design')!.id;
  const link = await render(member, '#**design>logos**');
  assert.match(link, new RegExp(`class="stream-topic" data-stream-id="${id}"`));
  assert.is(await render(member, '#**secret plans**'), '<p>#**secret plans**</p>');
  assert.match(await render(owner, '#**secret plans**'), /class="stream"/);
});

md('emoji, code, quotes, spoilers, uploads', async () => {
  const { member } = cast;
  assert.match(await render(member, ':smile:'), /<span aria-label="smile" class="emoji emoji-[0-9a-f]+" role="img" title="smile">:smile:<\/span>/);
  assertSuccess(await uploadFile(cast.owner, '/api/v1/realm/emoji/partyparrot', PNG));
  assert.match(await render(member, ':partyparrot:'), /<img alt=":partyparrot:" class="emoji" src="\/user_avatars\/\d+\/emoji\/images\/[0-9a-f-]{36}\.png" title="partyparrot">/);
  assert.match(await render(member, '```python\nprint("<b>")\n```'), /<div class="codehilite" data-code-language="Python"><pre><span><\/span><code>print\(&quot;&lt;b&gt;&quot;\)/);
  assert.match(await render(member, '```quote\nwise words\n```'), /<blockquote>\s*<p>wise words<\/p>\s*<\/blockquote>/);
  assert.match(await render(member, '```spoiler Title\nhidden\n```'), /<div class="spoiler-block"><div class="spoiler-header">/);
  const id = await sendToChannel(member, 'design', 'files', '[doc](/user_uploads/1/ab/cdefghijklmnopqrstuvwxyz/doc.pdf)');
  const m = assertSuccess(await member.get(`/api/v1/messages/${id}`)).message;
  assert.match(m.content, /href="\/user_uploads\/1\/ab\/cdefghijklmnopqrstuvwxyz\/doc.pdf"/);
});

md('hostile input stays inert: content, names, topics, channel names and descriptions', async () => {
  const { owner, member } = cast;
  const payloads = [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '[click](javascript:alert(1))',
    '[click](JaVaScRiPt:alert(1))',
    '![x](javascript:alert(1))',
    '<a href="javascript:alert(1)">x</a>',
    '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '<iframe src="https://evil.example"></iframe>',
    '```\n</code></pre><script>alert(1)</script>\n```',
    '> <svg onload=alert(1)>',
    '`<style>*{}</style>`',
    '[x](https://example.com" onmouseover="alert(1))',
    '@**<script>alert(1)</script>**',
    '#**<img src=x onerror=alert(1)>**',
    ':"><script>:',
  ];
  for (const p of payloads) assertInert(await render(member, p));
  // Names and topics with HTML in them are escaped wherever they are rendered.
  const evil = await realm.createUser({ name: 'Eve <img src=x onerror=alert(1)>' });
  const mention = await render(member, `@**Eve <img src=x onerror=alert(1)>|${evil.id}**`);
  assertInert(mention);
  assert.match(mention, /@Eve &lt;img src=x onerror=alert\(1\)&gt;/);
  await createChannel(owner, 'x"><script>alert(1)</script>', { others: [member] });
  const channelLink = await render(member, '#**x"><script>alert(1)</script>>topic"<b>**');
  assertInert(channelLink);
  const id = await sendToChannel(member, 'design', '<script>alert(1)</script>', 'x');
  const m = assertSuccess(await member.get('/api/v1/messages', { anchor: id, num_before: 0, num_after: 0, narrow: [['search', 'script']] }));
  assert.not.match(m.messages[0]?.match_subject ?? '', /<script/);
  const desc = assertSuccess(
    await owner.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name: 'described', description: '<script>alert(1)</script> [x](javascript:alert(1)) **ok**' }] }),
  );
  assert.ok(desc.subscribed);
  const described = assertSuccess(await owner.get(`/api/v1/streams/${realm.handle.state.channels.byName('described')!.id}`)).stream;
  assertInert(described.rendered_description);
  assert.match(described.rendered_description, /<strong>ok<\/strong>/);
});

md.after(async () => {
  await server.close();
});

md.run();
