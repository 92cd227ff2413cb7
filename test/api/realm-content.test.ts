// Custom emoji (upload, deactivation, images, realm_emoji events in both forms), linkifiers
// (administrators; realm_linkifiers only for clients that declare linkifier_url_template) and
// code playgrounds (administrators; realm_playgrounds).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyMarkdownContext, renderMarkdown } from '../../src/domain/markdown/index.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { expectConsistent } from '../helpers/consistency.js';
import { everyRole, PNG, uploadFile } from '../helpers/people.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let admin: TestUser;
let moderator: TestUser;
let member: TestUser;
let other: TestUser;
let guest: TestUser;
let bot: TestUser;

// Two frames, each introduced by a graphic control extension.
const GIF = Buffer.concat([
  Buffer.from('GIF89a', 'latin1'),
  Buffer.from('0100010080000000000000ffffff', 'hex'),
  Buffer.from('21f904000a0000002c00000000010001000002024401003b', 'hex'),
  Buffer.from('21f904000a0000002c00000000010001000002024401003b', 'hex'),
]);

const upload = (u: TestUser, name: string, data: Buffer | null) => uploadFile(u, `/api/v1/realm/emoji/${encodeURIComponent(name)}`, data);

const emojiTypes = (individual: boolean) => ({
  types: ['realm_emoji'],
  registerParams: { client_capabilities: { individual_emoji_changes: individual } },
});

const emoji = suite('custom emoji');
emoji.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  ({ admin, moderator, member, guest, bot } = await everyRole(realm));
  other = await realm.createUser();
});

emoji('members add emoji; both event forms keep clients current', async () => {
  const events = await expectConsistent(admin, () => upload(member, 'party_parrot', PNG), emojiTypes(true));
  assert.is(events[0]!.op, 'add');
  assert.is(events[0]!.emoji.name, 'party_parrot');
  assert.not.ok('realm_emoji' in events[0]!);
  const legacy = await expectConsistent(admin, () => upload(member, 'dancing', GIF), emojiTypes(false));
  assert.is(legacy[0]!.op, 'update');
  assert.equal(Object.keys(legacy[0]!.realm_emoji).length, 2);
  const listed = assertSuccess(await other.get('/api/v1/realm/emoji')).emoji;
  const parrot = Object.values(listed).find((e: any) => e.name === 'party_parrot') as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.equal(Object.keys(parrot).sort(), ['author_id', 'deactivated', 'id', 'name', 'source_url', 'still_url']);
  assert.is(parrot.author_id, member.id);
  assert.is(parrot.deactivated, false);
  assert.is(parrot.still_url, null);
  assert.match(parrot.source_url, new RegExp(`^/user_avatars/${realm.id}/emoji/images/[0-9a-f-]{36}\\.png$`));
  const dancing = Object.values(listed).find((e: any) => e.name === 'dancing') as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.match(dancing.source_url, /\.gif$/);
  assert.is(dancing.still_url, dancing.source_url, 'animated');
  const image = await server.request('GET', parrot.source_url, {}, { host: realm.host });
  assert.is(image.status, 200);
  assert.is(image.headers['Content-Type'], 'image/png');
  const reg = assertSuccess(await other.post('/api/v1/register', { fetch_event_types: ['realm_emoji'] }));
  assert.equal(reg.realm_emoji, listed);
});

emoji('the renderer finds active custom emoji in the cached state', async () => {
  const state = realm.handle.state;
  const found = state.markdownEmoji('party_parrot')!;
  assert.match(found.url, new RegExp(`^/user_avatars/${realm.id}/emoji/images/`));
  const html = renderMarkdown('hi :party_parrot:', { ...emptyMarkdownContext, realmEmoji: (n) => state.markdownEmoji(n) }).html;
  assert.ok(html.includes(found.url), html);
  assert.is(state.markdownEmoji('no_such_emoji'), null);
});

emoji('who may add, and what', async () => {
  assertError(await upload(guest, 'guest_emoji', PNG), 'Insufficient permission');
  assertError(await upload(member, 'party_parrot', PNG), 'A custom emoji with this name already exists.');
  assertError(await upload(member, 'Bad Name', PNG), 'Invalid characters in emoji name');
  assertError(await upload(member, 'trailing_', PNG), 'Emoji names must end with either a letter or digit.');
  assertError(await upload(member, 'smile', PNG), 'Only administrators can override default emoji.');
  assertSuccess(await upload(admin, 'smile', PNG));
  assertError(await upload(member, 'nofile', null), 'You must upload exactly one file.');
  assertError(await upload(member, 'text', Buffer.from('hello')), 'Could not decode image; did you upload an image file?');
  await realm.setGroupSetting('can_add_custom_emoji_group', 'role:moderators');
  assertError(await upload(member, 'members_no_more', PNG), 'Insufficient permission');
  assertSuccess(await upload(moderator, 'moderated', PNG));
  await realm.setGroupSetting('can_add_custom_emoji_group', 'role:members');
});

emoji('deactivation: the author or an administrator', async () => {
  assertSuccess(await upload(member, 'temporary', PNG));
  assertError(await other.delete('/api/v1/realm/emoji/temporary'), 'Must be an organization administrator or emoji author');
  assertError(await bot.delete('/api/v1/realm/emoji/temporary'), 'Must be an organization administrator or emoji author');
  const events = await expectConsistent(other, () => member.delete('/api/v1/realm/emoji/temporary'), emojiTypes(true));
  assert.is(events[0]!.op, 'edit');
  assert.is(events[0]!.emoji.deactivated, true);
  assertError(await member.delete('/api/v1/realm/emoji/temporary'), "Emoji 'temporary' does not exist");
  assertError(await admin.delete('/api/v1/realm/emoji/green_tick'), "Emoji 'green_tick' does not exist");
  await expectConsistent(other, () => admin.delete('/api/v1/realm/emoji/party_parrot'), emojiTypes(false));
  // The name is free again; the old one stays listed as deactivated.
  assertSuccess(await upload(other, 'temporary', PNG));
  const all = Object.values(assertSuccess(await member.get('/api/v1/realm/emoji')).emoji) as Array<{ name: string; deactivated: boolean }>;
  assert.equal(all.filter((e) => e.name === 'temporary').map((e) => e.deactivated).sort(), [false, true]);
});

// ---------------------------------------------------------------------------------------------
const linkifiers = suite('linkifiers');
const withTemplates = { types: ['realm_linkifiers'], registerParams: { client_capabilities: { linkifier_url_template: true } } };

linkifiers('administrators only', async () => {
  for (const u of [moderator, member, guest, bot]) {
    assertError(await u.post('/api/v1/realm/filters', { pattern: '#(?P<id>\\d+)', url_template: 'https://t.test/{id}' }), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
    assertError(await u.patch('/api/v1/realm/linkifiers', { ordered_linkifier_ids: [] }), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
  }
});

linkifiers('add, list, update, remove and reorder, with events', async () => {
  let first = 0;
  const events = await expectConsistent(member, async () => {
    first = assertSuccess(await admin.post('/api/v1/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.test/issues/{id}' })).id;
  }, withTemplates);
  assert.equal(events[0]!.realm_linkifiers, [{ id: first, pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.test/issues/{id}' }]);
  const second = assertSuccess(await admin.post('/api/v1/realm/filters', { pattern: 'PR(?P<n>[0-9]+)', url_template: 'https://code.test/pulls/{n}' })).id;
  assert.equal(assertSuccess(await member.get('/api/v1/realm/linkifiers')).linkifiers.map((l: { id: number }) => l.id), [first, second]);
  await expectConsistent(member, () => admin.patch(`/api/v1/realm/filters/${first}`, { pattern: 'T(?P<id>[0-9]+)', url_template: 'https://tracker.test/t/{id}' }), withTemplates);
  assertError(await admin.patch('/api/v1/realm/filters/999999', { pattern: 'x(?P<a>y)', url_template: 'https://x.test/{a}' }), 'Linkifier not found.');
  assertError(await admin.patch(`/api/v1/realm/filters/${first}`, { pattern: 'x(?P<a>y)' }), "Missing 'url_template' argument");
  assertError(await admin.patch('/api/v1/realm/linkifiers', { ordered_linkifier_ids: [first] }), 'The ordered list must enumerate all existing linkifiers exactly once');
  assertError(await admin.patch('/api/v1/realm/linkifiers', { ordered_linkifier_ids: [first, first, second] }), 'The ordered list must not contain duplicated linkifiers');
  await expectConsistent(member, () => admin.patch('/api/v1/realm/linkifiers', { ordered_linkifier_ids: [second, first] }), withTemplates);
  assert.equal(realm.handle.state.linkifiers.map((l) => l.id), [second, first]);
  const html = renderMarkdown('see PR12', { ...emptyMarkdownContext, linkifiers: realm.handle.state.markdownLinkifiers() }).html;
  assert.ok(html.includes('href="https://code.test/pulls/12"'), html);
  await expectConsistent(member, () => admin.delete(`/api/v1/realm/filters/${second}`), withTemplates);
  assertError(await admin.delete(`/api/v1/realm/filters/${second}`), 'Linkifier not found.');
});

linkifiers('a NUL character in a pattern is a 400, not a database error (found by fuzzing)', async () => {
  assertError(await admin.post('/api/v1/realm/filters', { pattern: '\u0000', url_template: 'https://x.test/' }), 'pattern must not contain null bytes');
  const id = assertSuccess(await admin.post('/api/v1/realm/filters', { pattern: 'N(?P<n>[0-9]+)', url_template: 'https://x.test/{n}' })).id;
  assertError(await admin.patch(`/api/v1/realm/filters/${id}`, { pattern: 'a\u0000', url_template: 'https://x.test/{n}' }), 'pattern must not contain null bytes');
  assertSuccess(await admin.delete(`/api/v1/realm/filters/${id}`));
});

linkifiers('a pattern that takes half of an astral character links nothing; the text is stored whole (found by fuzzing)', async () => {
  // "." runs on UTF-16 code units: it used to link the first half of such a character, and
  // the event carrying the broken rendering was refused by the database (a 500).
  const id = assertSuccess(await admin.post('/api/v1/realm/filters', { pattern: '(?P<c>.)', url_template: 'https://x.test/{c}' })).id;
  const folder = assertSuccess(await admin.post('/api/v1/channel_folders/create', { name: 'emoji folder', description: 'x' })).channel_folder_id;
  assertSuccess(await admin.patch(`/api/v1/channel_folders/${folder}`, { description: '\u{10400}\u{1D400}' }));
  const stored = (assertSuccess(await admin.get('/api/v1/channel_folders')).channel_folders as Array<{ id: number; rendered_description: string }>).find((f) => f.id === folder)!;
  assert.is(stored.rendered_description, '<p>\u{10400}\u{1D400}</p>');
  assertSuccess(await admin.delete(`/api/v1/realm/filters/${id}`));
});

linkifiers('patterns and templates are checked', async () => {
  const add = (pattern: string, url_template: string) => admin.post('/api/v1/realm/filters', { pattern, url_template });
  assert.match((await add('(a+)+', 'https://x.test/')).json.msg, /^Bad regular expression/);
  assert.match((await add('#(?P<id>\\d+)', 'https://x.test/{id')).json.msg, /^Invalid URL template/);
  assertError(await add('#(?P<id>\\d+)', 'https://x.test/{ticket}'), 'Group "ticket" in URL template is not present in linkifier pattern.');
  assertError(await add('T(?P<id>[0-9]+)', 'https://other.test/{id}'), 'Linkifier with this pattern already exists.');
});

linkifiers('clients without linkifier_url_template get neither the list nor events', async () => {
  const events = await expectConsistent(
    member,
    () => admin.post('/api/v1/realm/filters', { pattern: 'D(?P<d>[0-9]+)', url_template: 'https://docs.test/{d}' }),
    { types: ['realm_linkifiers'] },
  );
  assert.equal(events, []);
  assert.equal(assertSuccess(await member.post('/api/v1/register', { fetch_event_types: ['realm_linkifiers'] })).realm_linkifiers, []);
});

const playgrounds = suite('code playgrounds');
const ptypes = { types: ['realm_playgrounds'] };
const playground = (u: TestUser, name: string, language: string, template = 'https://play.test/?code={code}') =>
  u.post('/api/v1/realm/playgrounds', { name, pygments_language: language, url_template: template });

playgrounds('administrators add and remove them; everyone is told the whole list', async () => {
  let id = 0;
  const events = await expectConsistent(member, async () => (id = assertSuccess(await playground(admin, 'Rust Playground', 'Rust')).id), ptypes);
  const rust = { id, name: 'Rust Playground', pygments_language: 'Rust', url_template: 'https://play.test/?code={code}' };
  assert.equal(events.map((e) => e.realm_playgrounds), [[rust]]);
  const other = assertSuccess(await playground(realm.owner, 'Rust Explorer', 'Rust', 'https://explore.test/{?code}')).id as number;
  assertError(await playground(admin, 'Rust Playground', 'Rust'), 'Realm playground with this Realm, Pygments language and Name already exists.');
  assertSuccess(await playground(admin, 'Rust Playground', 'C++'));
  for (const u of [moderator, member, guest, bot]) {
    assertError(await playground(u, 'Mine', 'Python'), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
    assertError(await u.delete(`/api/v1/realm/playgrounds/${id}`), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
  }
  await expectConsistent(member, async () => assertSuccess(await admin.delete(`/api/v1/realm/playgrounds/${other}`)), ptypes);
  assertError(await admin.delete(`/api/v1/realm/playgrounds/${other}`), 'Invalid playground');
  const listed = assertSuccess(await guest.post('/api/v1/register', { fetch_event_types: ['realm_playgrounds'] })).realm_playgrounds as Array<{ id: number }>;
  assert.equal(listed[0], rust);
  assert.equal(listed.map((p) => p.id).includes(other), false);
});

playgrounds('names, languages and templates are checked', async () => {
  assertError(await playground(admin, '', 'Python'), 'Name cannot be blank.');
  assertError(await playground(admin, 'P', ''), 'Pygments language cannot be blank.');
  assertError(await playground(admin, 'P', 'x'.repeat(41)), 'Pygments language is too long (limit: 40 characters)');
  assertError(await playground(admin, 'P', 'Py<thon>'), 'Invalid characters in pygments language');
  assertError(await playground(admin, 'P', 'Python', 'https://play.test/'), 'Missing the required variable "code" in the URL template');
  assertError(await playground(admin, 'P', 'Python', 'https://play.test/{lang}/{code}'), '"code" should be the only variable present in the URL template');
  assertError(await playground(admin, 'P', 'Python', 'https://play.test/{code'), "Invalid URL template: unmatched '{'");
  assertSuccess(await playground(admin, 'Objective-C++ (clang)', 'objective-c++ #1.2'));
});

playgrounds.after(async () => {
  await server.close();
});

emoji.run();
linkifiers.run();
playgrounds.run();
