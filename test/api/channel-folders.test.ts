// Channel folders: POST /channel_folders/create (endpoint 6), GET /channel_folders, PATCH
// /channel_folders/{id} (rename, describe, archive), PATCH /channel_folders (reorder), the
// channel_folder events and the register member.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { oneOfEachRole, ROLE_NAMES, type OneOfEachRole } from '../helpers/roles.js';
import { expectConsistent } from '../helpers/consistency.js';
import { startTestServer, type TestRealm, type TestServer } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let cast: OneOfEachRole;
let counter = 0;

const types = { types: ['channel_folder'] };

async function createFolder(name = `Folder ${++counter}`, description = ''): Promise<number> {
  return assertSuccess(await cast.admin.post('/api/v1/channel_folders/create', { name, description })).channel_folder_id as number;
}

async function folders(includeArchived = true): Promise<Record<string, any>[]> {
  return assertSuccess(await cast.member.get('/api/v1/channel_folders', { include_archived: includeArchived })).channel_folders;
}

const setup = async () => {
  server ??= await startTestServer();
  realm ??= await server.createRealm();
  cast ??= await oneOfEachRole(realm, { botOwner: 'member' });
};

const create = suite('POST /channel_folders/create');
create.before(setup);

create('returns the id; the folder reads back with rendered description and order', async () => {
  const before = await realm.owner.post('/api/v1/register', { fetch_event_types: [] });
  const limits = assertSuccess(before);
  assert.is(limits.max_channel_folder_name_length, 60);
  assert.is(limits.max_channel_folder_description_length, 1024);
  const id = await createFolder('Frontend', 'Channels for **UI** work');
  const f = (await folders()).find((x) => x.id === id)!;
  assert.equal(Object.keys(f).sort(), ['creator_id', 'date_created', 'description', 'id', 'is_archived', 'name', 'order', 'rendered_description']);
  assert.is(f.name, 'Frontend');
  assert.is(f.description, 'Channels for **UI** work');
  assert.is(f.rendered_description, '<p>Channels for <strong>UI</strong> work</p>');
  assert.is(f.creator_id, cast.admin.id);
  assert.is(f.is_archived, false);
  assert.type(f.date_created, 'number');
  const second = await createFolder();
  assert.is((await folders()).find((x) => x.id === second)!.order, f.order + 1);
});

create('emits channel_folder add, consistent with register', async () => {
  const events = await expectConsistent(cast.member, () => createFolder(), types);
  assert.equal(events.map((e) => e.op), ['add']);
});

create('errors: name and description rules', async () => {
  const post = (params: Record<string, string>) => cast.admin.post('/api/v1/channel_folders/create', params);
  assertError(await post({ name: '   ', description: '' }), "Channel folder name can't be empty.");
  assertError(await post({ name: 'x'.repeat(61), description: '' }), 'name is too long (limit: 60 characters)');
  assertError(await post({ name: 'Long', description: 'd'.repeat(1025) }), 'description is too long (limit: 1024 characters)');
  assertError(await post({ name: 'No description' }), "Missing 'description' argument");
  assertError(await post({ description: '' }), "Missing 'name' argument");
  await createFolder('Taken');
  assertError(await post({ name: 'TAKEN', description: '' }), 'Channel folder name already in use');
  assertSuccess(await post({ name: 'x'.repeat(60), description: 'd'.repeat(1024) }));
});

create('administrators only, by role', async () => {
  for (const role of ROLE_NAMES) {
    const res = await cast[role].post('/api/v1/channel_folders/create', { name: `By ${role}`, description: '' });
    if (role === 'owner' || role === 'admin') assertSuccess(res);
    else assertError(res, 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
  }
});

create('a channel created by subscribing goes in a folder of its own organization only', async () => {
  const id = await createFolder();
  const subscribe = (name: string, folderId: number) =>
    cast.admin.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name }], folder_id: folderId });
  assertSuccess(await subscribe('filed', id));
  const filed = assertSuccess(await cast.admin.get('/api/v1/streams')).streams.find((c: { name: string }) => c.name === 'filed');
  assert.is(filed.folder_id, id);
  assertError(await subscribe('nowhere', 2_147_483_647), 'Invalid channel folder ID');
  const other = await server.createRealm();
  const theirs = assertSuccess(await other.owner.post('/api/v1/channel_folders/create', { name: 'Theirs', description: '' })).channel_folder_id;
  assertError(await subscribe('elsewhere', theirs), 'Invalid channel folder ID');
  const names = assertSuccess(await cast.admin.get('/api/v1/streams')).streams.map((c: { name: string }) => c.name);
  assert.not.ok(names.includes('nowhere') || names.includes('elsewhere'), 'no channel was made');
});

const update = suite('PATCH /channel_folders/{id}');
update.before(setup);

update('rename, describe, archive and unarchive; events consistent with register', async () => {
  const id = await createFolder();
  const events = await expectConsistent(
    cast.member,
    async () => assertSuccess(await cast.admin.patch(`/api/v1/channel_folders/${id}`, { name: 'Renamed', description: '*new*' })),
    types,
  );
  assert.equal(events.map((e) => Object.keys(e.data).sort()), [['name'], ['description', 'rendered_description']]);
  const f = (await folders()).find((x) => x.id === id)!;
  assert.is(f.name, 'Renamed');
  assert.is(f.rendered_description, '<p><em>new</em></p>');
  await expectConsistent(cast.member, async () => assertSuccess(await cast.admin.patch(`/api/v1/channel_folders/${id}`, { is_archived: true })), types);
  assert.not.ok((await folders(false)).some((x) => x.id === id));
  assert.ok((await folders(true)).find((x) => x.id === id)!.is_archived);
  await expectConsistent(cast.member, async () => assertSuccess(await cast.admin.patch(`/api/v1/channel_folders/${id}`, { is_archived: false })), types);
  assert.ok((await folders(false)).some((x) => x.id === id));
});

update('errors', async () => {
  const id = await createFolder();
  await createFolder('Occupied');
  assertError(await cast.admin.patch('/api/v1/channel_folders/999999', { name: 'x' }), 'Invalid channel folder ID');
  assertError(await cast.admin.patch(`/api/v1/channel_folders/${id}`), 'No new data supplied');
  assertError(await cast.admin.patch(`/api/v1/channel_folders/${id}`, { name: '' }), "Channel folder name can't be empty.");
  assertError(await cast.admin.patch(`/api/v1/channel_folders/${id}`, { name: 'occupied' }), 'Channel folder name already in use');
  // A folder of another organization is invalid here.
  const elsewhere = await server.createRealm();
  const foreign = assertSuccess(await elsewhere.owner.post('/api/v1/channel_folders/create', { name: 'Theirs', description: '' })).channel_folder_id;
  assertError(await cast.admin.patch(`/api/v1/channel_folders/${foreign}`, { name: 'Mine' }), 'Invalid channel folder ID');
});

update('a folder with active channels cannot be archived', async () => {
  const id = await createFolder();
  const name = `chan-${id}`;
  assertSuccess(await cast.admin.post('/api/v1/users/me/subscriptions', { subscriptions: [{ name }], folder_id: id }));
  const channelId = assertSuccess(await cast.admin.get('/api/v1/get_stream_id', { stream: name })).stream_id;
  assertError(await cast.admin.patch(`/api/v1/channel_folders/${id}`, { is_archived: true }), 'You need to remove all the channels from this folder to archive it.');
  assertSuccess(await cast.admin.delete(`/api/v1/streams/${channelId}`));
  assertSuccess(await cast.admin.patch(`/api/v1/channel_folders/${id}`, { is_archived: true }));
});

update('administrators only, by role', async () => {
  const id = await createFolder();
  for (const role of ROLE_NAMES) {
    const res = await cast[role].patch(`/api/v1/channel_folders/${id}`, { description: `by ${role}` });
    if (role === 'owner' || role === 'admin') assertSuccess(res);
    else assertError(res, 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
  }
});

const order = suite('PATCH /channel_folders (reorder) and GET');
order.before(setup);

order('reorder takes every folder, archived included; event consistent with register', async () => {
  const archived = await createFolder();
  assertSuccess(await cast.admin.patch(`/api/v1/channel_folders/${archived}`, { is_archived: true }));
  const ids = (await folders()).map((f) => f.id);
  const reversed = [...ids].reverse();
  const events = await expectConsistent(cast.member, async () => assertSuccess(await cast.admin.patch('/api/v1/channel_folders', { order: reversed })), types);
  assert.equal(events[0]!.order, reversed);
  assert.equal((await folders()).map((f) => f.id), reversed);
  assert.equal((await folders()).map((f) => f.order), reversed.map((_, i) => i));
  assertError(await cast.admin.patch('/api/v1/channel_folders', { order: ids.filter((id) => id !== archived) }), 'Invalid order mapping');
  assertError(await cast.admin.patch('/api/v1/channel_folders', { order: [...ids, ids[0]!] }), 'Invalid order mapping');
  assertError(await cast.admin.patch('/api/v1/channel_folders', { order: [...ids.slice(1), 999999] }), 'Invalid order mapping');
  assertError(await cast.member.patch('/api/v1/channel_folders', { order: ids }), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
});

order('everyone may list folders; register carries them all', async () => {
  for (const role of ROLE_NAMES) assertSuccess(await cast[role].get('/api/v1/channel_folders'));
  const r = assertSuccess(await cast.guest.post('/api/v1/register', { fetch_event_types: ['channel_folder'] }));
  assert.equal(r.channel_folders.map((f: { id: number }) => f.id), (await folders(true)).map((f) => f.id));
});

order.after(async () => {
  await server.close();
});

create.run();
update.run();
order.run();
