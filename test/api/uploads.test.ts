// Uploads: POST /user_uploads, who may fetch a file (uploader, readers of a referencing message;
// never through private channels they cannot read), temporary URLs, GET/DELETE /attachments,
// detached uploads after an edit, and files served so that they cannot script our origin.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { drainEvents, registerState } from '../helpers/consistency.js';
import { castOf, createChannel, sendToChannel, type Cast } from '../helpers/messaging.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: Cast;
const clock = new ManualClock(Date.UTC(2026, 2, 1));

function multipart(files: Array<{ name: string; type: string; data: Buffer | string }>): { body: Buffer; contentType: string } {
  const boundary = 'parleyTestBoundary42';
  const parts: Buffer[] = [];
  files.forEach((f, i) => {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file${i}"; filename="${f.name}"\r\nContent-Type: ${f.type}\r\n\r\n`));
    parts.push(Buffer.isBuffer(f.data) ? f.data : Buffer.from(f.data));
    parts.push(Buffer.from('\r\n'));
  });
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function upload(u: TestUser, name = 'notes.txt', data: string | Buffer = 'hello file', type = 'text/plain'): Promise<{ url: string; pathId: string }> {
  const r = assertSuccess(await u.post('/api/v1/user_uploads', {}, multipart([{ name, type, data }])));
  return { url: r.url, pathId: r.url.replace('/user_uploads/', '') };
}

const fetchFile = (u: TestUser | null, url: string) =>
  u ? u.get(url) : realm.anonymous('GET', url);

const up = suite('uploading');
up.before(async () => {
  server = await startTestServer({ clock, env: { MAX_UPLOAD_BYTES: '2048' } });
  realm = await server.createRealm();
  cast = await castOf(realm);
});

up('a file, its record, and its event', async () => {
  const { member } = cast;
  const { queue_id } = await registerState(member, { types: ['attachment'] });
  const r = assertSuccess(await member.post('/api/v1/user_uploads', {}, multipart([{ name: 'My Notes (final).txt', type: 'text/plain', data: 'hello' }])));
  assert.match(r.url, new RegExp(`^/user_uploads/${realm.id}/[0-9a-f]{2}/[A-Za-z0-9]{24}/My-Notes-final.txt$`));
  assert.is(r.uri, r.url);
  assert.is(r.filename, 'My-Notes-final.txt');
  const list = assertSuccess(await member.get('/api/v1/attachments'));
  const a = list.attachments.find((x: { path_id: string }) => r.url.endsWith(x.path_id));
  assert.equal(Object.keys(a).sort(), ['create_time', 'id', 'message_ids', 'name', 'path_id', 'size']);
  assert.is(a.name, 'My Notes (final).txt');
  assert.is(a.size, 5);
  assert.is(a.create_time, Math.floor(clock.now() / 1000));
  assert.equal(a.message_ids, []);
  assert.ok(list.upload_space_used >= 5);
  const events = await drainEvents(member, queue_id);
  assert.equal(events.map((e) => [e.type, e.op, e.attachment.id]), [['attachment', 'add', a.id]]);
});

up('refusals', async () => {
  const { member } = cast;
  assertError(await member.post('/api/v1/user_uploads', {}), 'You must specify a file to upload');
  const two = multipart([{ name: 'a.txt', type: 'text/plain', data: 'a' }, { name: 'b.txt', type: 'text/plain', data: 'b' }]);
  assertError(await member.post('/api/v1/user_uploads', {}, two), 'You may only upload one file at a time');
  const big = multipart([{ name: 'big.bin', type: 'application/octet-stream', data: Buffer.alloc(3000) }]);
  assertError(await member.post('/api/v1/user_uploads', {}, big), 'Uploaded file is larger than the allowed limit of 0.002 MiB');
  assertError(await realm.anonymous('POST', '/api/v1/user_uploads', {}, multipart([{ name: 'a.txt', type: 'text/plain', data: 'a' }])), 'Not logged in: API authentication or user session required', 401);
});

const access = suite('fetching files');

access('the uploader; readers of a referencing message; nobody else', async () => {
  const { owner, member, guest, admin } = cast;
  const { url, pathId } = await upload(member, 'report.txt', 'quarterly numbers');
  const mine = await fetchFile(member, url);
  assert.is(mine.status, 200);
  assert.is(mine.text, 'quarterly numbers');
  assert.is(mine.headers['Content-Type'], 'text/plain; charset=utf-8');
  assert.is(mine.headers['X-Content-Type-Options'], 'nosniff');
  assertError(await fetchFile(owner, url), 'File not found', 404);
  // A private channel: its subscribers may fetch it, administrators may not.
  await createChannel(member, 'files-private', { invite_only: true, others: [guest] });
  const id = await sendToChannel(member, 'files-private', 'docs', `[report](/user_uploads/${pathId})`);
  assert.is((await fetchFile(guest, url)).status, 200);
  assertError(await fetchFile(admin, url), 'File not found', 404);
  // A public channel: every member may, guests who are not subscribed may not.
  const { url: url2, pathId: path2 } = await upload(member, 'public.txt', 'for all');
  await createChannel(member, 'files-public');
  await sendToChannel(member, 'files-public', 'docs', `[it](/user_uploads/${path2})`);
  assert.is((await fetchFile(admin, url2)).status, 200);
  assertError(await fetchFile(guest, url2), 'File not found', 404);
  assertError(await fetchFile(null, url2), 'Not logged in: API authentication or user session required', 401);
  assertError(await fetchFile(member, `/user_uploads/${realm.id}/zz/nothing/x.txt`), 'File not found', 404);
  const linked = assertSuccess(await member.get('/api/v1/attachments')).attachments.find((a: { path_id: string }) => a.path_id === pathId);
  assert.equal(linked.message_ids, [id]);
  const narrowed = assertSuccess(await guest.get('/api/v1/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [['has', 'attachment']] }));
  assert.equal(narrowed.messages.map((m: { id: number }) => m.id), [id]);
});

access('files that could script the page are downloads, never inline', async () => {
  const { member } = cast;
  for (const [name, type] of [['evil.html', 'text/html'], ['evil.svg', 'image/svg+xml'], ['evil.js', 'application/javascript']] as const) {
    const { url } = await upload(member, name, '<script>alert(1)</script>', type);
    const r = await fetchFile(member, url);
    assert.is(r.headers['Content-Type'], 'application/octet-stream');
    assert.match(r.headers['Content-Disposition']!, /^attachment; filename="evil\./);
    assert.match(r.headers['Content-Security-Policy']!, /sandbox/);
  }
  const { url } = await upload(member, 'pic.png', Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'image/png');
  const pic = await fetchFile(member, url);
  assert.is(pic.headers['Content-Type'], 'image/png');
  assert.match(pic.headers['Content-Disposition']!, /^inline;/);
});

access('temporary URLs work without credentials, briefly', async () => {
  const { member, owner } = cast;
  const { url, pathId } = await upload(member, 'brief.txt', 'short-lived');
  const r = assertSuccess(await member.get(`/api/v1/user_uploads/${pathId}`));
  assert.match(r.url, /^\/user_uploads\/temporary\/[^/]+\/brief.txt$/);
  const fetched = await realm.anonymous('GET', r.url);
  assert.is(fetched.status, 200);
  assert.is(fetched.text, 'short-lived');
  assertError(await owner.get(`/api/v1/user_uploads/${pathId}`), 'File not found', 404);
  const forged = r.url.replace(/temporary\/([^.]+)\.[^/]+/, 'temporary/$1.AAAA');
  assertError(await realm.anonymous('GET', forged), 'File not found', 404);
  clock.advance(61_000);
  assertError(await realm.anonymous('GET', r.url), 'File not found', 404);
  void url;
});

const manage = suite('managing attachments');

manage('deleting, and detached uploads after an edit', async () => {
  const { member, owner } = cast;
  const { url, pathId } = await upload(member, 'draft.txt', 'draft');
  await createChannel(member, 'files-edit', { others: [owner] });
  const id = await sendToChannel(member, 'files-edit', 't', `see [draft](/user_uploads/${pathId})`);
  const r = assertSuccess(await member.patch(`/api/v1/messages/${id}`, { content: 'never mind' }));
  assert.is(r.detached_uploads.length, 1);
  const d = r.detached_uploads[0];
  assert.equal(Object.keys(d).sort(), ['create_time', 'id', 'message_ids', 'name', 'path_id', 'size']);
  assert.equal([d.name, d.path_id, d.size, d.message_ids], ['draft.txt', pathId, 5, []]);
  assertError(await owner.delete(`/api/v1/attachments/${d.id}`), 'Invalid attachment');
  const { queue_id } = await registerState(member, { types: ['attachment'] });
  assertSuccess(await member.delete(`/api/v1/attachments/${d.id}`));
  assert.equal((await drainEvents(member, queue_id)).map((e) => [e.type, e.op, e.attachment.id]), [['attachment', 'remove', d.id]]);
  assertError(await fetchFile(member, url), 'File not found', 404);
  assertError(await member.delete('/api/v1/attachments/999999'), 'Invalid attachment');
});

manage('upload_space_used counts the bytes of every upload added and not removed', async () => {
  const { member, admin } = cast;
  const used = async () => assertSuccess(await member.get('/api/v1/attachments')).upload_space_used as number;
  const before = await used();
  const { queue_id } = await registerState(admin, { types: ['attachment'] });
  const first = await upload(admin, 'seven.txt', 'seven!!');
  await upload(member, 'three.txt', 'abc');
  assert.is(await used(), before + 10, 'everyone uploads into the one total');
  const [added] = await drainEvents(admin, queue_id);
  assert.is(added!.upload_space_used, before + 7, 'the add event, before the other upload');
  const id = assertSuccess(await admin.get('/api/v1/attachments')).attachments.find((a: { path_id: string }) => a.path_id === first.pathId).id;
  assertSuccess(await admin.delete(`/api/v1/attachments/${id}`));
  assert.is(await used(), before + 3);
  const [removed] = await drainEvents(admin, queue_id, added!.id);
  assert.equal([removed!.op, removed!.upload_space_used], ['remove', before + 3]);
});

manage('the owner hears of every message that starts or stops referencing an upload: sends, forwards, edits, deletes', async () => {
  const { member, owner, admin } = cast;
  const { pathId } = await upload(member, 'shared.txt', 'shared');
  await createChannel(member, 'files-linked', { others: [owner] });
  const link = `[shared](/user_uploads/${pathId})`;
  // GET /attachments and the owner's attachment events, applied as a client would.
  type Listed = { attachments: Array<{ id: number; message_ids: number[] }>; upload_space_used: number };
  const listOf = async (u: TestUser): Promise<Listed> => {
    const { attachments, upload_space_used } = assertSuccess(await u.get('/api/v1/attachments'));
    return { attachments, upload_space_used };
  };
  const mine = await listOf(member);
  const { queue_id } = await registerState(member, { types: ['attachment'] });
  const others = await Promise.all([owner, admin].map(async (u) => ({ u, queue: (await registerState(u, { types: ['attachment'] })).queue_id as string })));
  let last = -1;
  const step = async (what: string, act: () => Promise<unknown>, messageIds: () => number[]) => {
    await act();
    const events = await drainEvents(member, queue_id, last);
    last = events.at(-1)?.id ?? last;
    for (const e of events) {
      assert.is(e.op, 'update', what);
      mine.attachments = mine.attachments.map((a) => (a.id === e.attachment.id ? e.attachment : a));
      mine.upload_space_used = e.upload_space_used;
    }
    assert.ok(events.length > 0, `${what}: told`);
    assert.equal(mine, await listOf(member), `${what}: the list and its events agree`);
    assert.equal(mine.attachments.find((a) => events[0]!.attachment.id === a.id)!.message_ids, messageIds(), what);
  };
  let first = 0;
  let forwarded = 0;
  await step('sent', async () => (first = await sendToChannel(member, 'files-linked', 't', `see ${link}`)), () => [first]);
  await step('forwarded by a reader', async () => (forwarded = await sendToChannel(owner, 'files-linked', 'again', `as said: ${link}`)), () => [first, forwarded]);
  await step('edited out', () => member.patch(`/api/v1/messages/${first}`, { content: 'never mind' }), () => [forwarded]);
  await step('edited back in', () => member.patch(`/api/v1/messages/${first}`, { content: `after all ${link}` }), () => [first, forwarded]);
  await step('deleted', () => admin.delete(`/api/v1/messages/${forwarded}`), () => [first]);
  // At once, in conversations whose transactions may overlap: each change sees those before it.
  const channels = ['files-a', 'files-b', 'files-c', 'files-d'];
  for (const name of channels) await createChannel(member, name, { others: [owner] });
  let together: number[] = [];
  await step('sent four times at once', async () => {
    together = await Promise.all(channels.map((name, i) => sendToChannel(i % 2 ? owner : member, name, 't', `here too ${link}`)));
  }, () => [first, ...together].sort((a, b) => a - b));
  for (const { u, queue } of others) assert.equal(await drainEvents(u, queue), [], 'nobody else hears of it');
});

manage.after(async () => {
  await server.close();
});

up.run();
access.run();
manage.run();
