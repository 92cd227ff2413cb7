// Custom profile fields: definitions (administrators), values (users and administrators),
// profile_data in user objects, rendered_value, custom_profile_fields events and register members.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { expectConsistent } from '../helpers/consistency.js';
import { everyRole } from '../helpers/people.js';
import { startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;
let admin: TestUser;
let moderator: TestUser;
let member: TestUser;
let guest: TestUser;
let bot: TestUser;

const types = ['custom_profile_fields', 'realm_user'];

const fields = suite('custom profile field definitions');
fields.before(async () => {
  server = await startTestServer();
  realm = await server.createRealm();
  ({ admin, moderator, member, guest, bot } = await everyRole(realm));
});

fields('only administrators define fields', async () => {
  for (const u of [moderator, member, guest, bot]) {
    assertError(await u.post('/api/v1/realm/profile_fields', { name: 'Phone', field_type: 1 }), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
    assertError(await u.patch('/api/v1/realm/profile_fields', { order: [] }), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
  }
});

fields('create, list and register', async () => {
  let id = 0;
  const events = await expectConsistent(member, async () => {
    id = assertSuccess(await admin.post('/api/v1/realm/profile_fields', { name: 'Phone', hint: 'Work phone', field_type: 1 })).id;
  }, { types });
  assert.type(id, 'number');
  assert.equal(events.map(({ id: _i, ...e }) => e), [
    {
      type: 'custom_profile_fields',
      fields: [{ id, name: 'Phone', type: 1, hint: 'Work phone', field_data: '', order: 1, required: false, editable_by_user: true }],
    },
  ]);
  const listed = assertSuccess(await member.get('/api/v1/realm/profile_fields')).custom_fields;
  assert.equal(listed, events[0]!.fields);
  const reg = assertSuccess(await member.post('/api/v1/register', { fetch_event_types: ['custom_profile_fields'] }));
  assert.equal(reg.custom_profile_fields, listed);
  assert.equal(reg.custom_profile_field_types.USER, { id: 6, name: 'Person picker' });
});

fields('field rules', async () => {
  const post = (params: Record<string, unknown>) => admin.post('/api/v1/realm/profile_fields', params as never);
  assertError(await post({ name: 'phone', field_type: 1 }), 'A field with that label already exists.');
  assertError(await post({ name: '  ', field_type: 1 }), 'Label cannot be blank.');
  assertError(await post({ name: 'x'.repeat(41), field_type: 1 }), 'name is too long (limit: 40 characters)');
  assertError(await post({ name: 'Odd', field_type: 9 }), 'Invalid field type.');
  assertError(await post({ name: 'Bio', field_type: 2, display_in_profile_summary: true }), 'Field type not supported for display in profile summary.');
  assertError(await post({ name: 'Colour', field_type: 3, field_data: {} }), 'Field must have at least one choice.');
  assertError(await post({ name: 'Colour', field_type: 3, field_data: { a: { text: 'Red' } } }), 'Invalid field data for a list of options.');
  assertError(await post({ name: 'Site', field_type: 7, field_data: { subtype: 'custom' } }), 'Custom external account must define URL pattern');
  assertError(await post({ name: 'Site', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'https://x.test/' } }), 'Malformed URL pattern.');
  assertError(await post({ name: 'Birthday', field_type: 4, use_for_user_matching: true }), 'Only short text and external account fields can be used for user matching.');
  assertSuccess(await post({ name: 'Team', field_type: 8, display_in_profile_summary: true }));
  assertSuccess(await post({ name: 'Desk', field_type: 1, display_in_profile_summary: true }));
  assertError(await post({ name: 'Floor', field_type: 1, display_in_profile_summary: true }), 'Only 2 custom profile fields can be displayed in the profile summary.');
  // A known external account kind names the field itself.
  const gh = assertSuccess(await post({ name: 'ignored', field_type: 7, field_data: { subtype: 'github' } })).id;
  const listed = assertSuccess(await member.get('/api/v1/realm/profile_fields')).custom_fields;
  const ghField = listed.find((f: { id: number }) => f.id === gh);
  assert.is(ghField.name, 'GitHub');
  assert.equal(JSON.parse(ghField.field_data), { subtype: 'github' });
  assert.is(listed.find((f: { name: string }) => f.name === 'Team').display_in_profile_summary, true);
});

fields('update, reorder and delete', async () => {
  const id = assertSuccess(await admin.post('/api/v1/realm/profile_fields', { name: 'Room', field_type: 1 })).id;
  await expectConsistent(member, () => admin.patch(`/api/v1/realm/profile_fields/${id}`, { name: 'Office', hint: 'Where to find you', required: true }), { types });
  assertError(await admin.patch('/api/v1/realm/profile_fields/999999', { name: 'X' }), 'Field id 999999 not found.');
  assertError(await admin.patch(`/api/v1/realm/profile_fields/${id}`, { name: 'Phone' }), 'A field with that label already exists.');
  assertError(await member.patch(`/api/v1/realm/profile_fields/${id}`, { name: 'X' }), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
  const ids: number[] = assertSuccess(await member.get('/api/v1/realm/profile_fields')).custom_fields.map((f: { id: number }) => f.id);
  assertError(await admin.patch('/api/v1/realm/profile_fields', { order: ids.slice(1) }), 'Invalid order mapping.');
  await expectConsistent(member, () => admin.patch('/api/v1/realm/profile_fields', { order: [...ids].reverse() }), { types });
  const after = assertSuccess(await member.get('/api/v1/realm/profile_fields')).custom_fields;
  assert.equal(after.map((f: { id: number }) => f.id), [...ids].reverse());
  assertSuccess(await member.patch('/api/v1/users/me/profile_data', { data: [{ id, value: 'B12' }] }));
  await expectConsistent(member, () => admin.delete(`/api/v1/realm/profile_fields/${id}`), { types });
  assertError(await admin.delete(`/api/v1/realm/profile_fields/${id}`), `Field id ${id} not found.`);
});

// ---------------------------------------------------------------------------------------------
const values = suite('profile data');
const field: Record<string, number> = {};

values.before(async () => {
  const make = async (name: string, field_type: number, extra: Record<string, unknown> = {}) =>
    (field[name] = assertSuccess(await admin.post('/api/v1/realm/profile_fields', { name, field_type, ...extra } as never)).id);
  await make('Nick', 1);
  await make('About', 2);
  await make('Shirt', 3, { field_data: { s: { text: 'Small', order: '1' }, l: { text: 'Large', order: '2' } } });
  await make('Born', 4);
  await make('Homepage', 5);
  await make('Mentor', 6);
  await make('Badge', 1, { editable_by_user: false });
});

values('a user sets values of every type; user objects carry them, rendered where Markdown', async () => {
  const data = [
    { id: field.Nick, value: '**Mimi**' },
    { id: field.About, value: 'Likes *tea*' },
    { id: field.Shirt, value: 'l' },
    { id: field.Born, value: '1990-04-01' },
    { id: field.Homepage, value: 'https://mia.example.com/' },
    { id: field.Mentor, value: [admin.id] },
  ];
  const events = await expectConsistent(admin, () => member.patch('/api/v1/users/me/profile_data', { data }), { types });
  assert.is(events.length, 6);
  const pd = assertSuccess(await admin.get(`/api/v1/users/${member.id}`, { include_custom_profile_fields: true })).user.profile_data;
  assert.equal(pd[field.Nick], { value: '**Mimi**', rendered_value: '<p><strong>Mimi</strong></p>' });
  assert.equal(pd[field.About], { value: 'Likes *tea*', rendered_value: '<p>Likes <em>tea</em></p>' });
  assert.equal(pd[field.Shirt], { value: 'l' });
  assert.equal(pd[field.Born], { value: '1990-04-01' });
  assert.equal(pd[field.Mentor], { value: `[${admin.id}]` });
  const me = assertSuccess(await member.get('/api/v1/users/me'));
  assert.equal(me.profile_data, pd);
  const reg = assertSuccess(await admin.post('/api/v1/register', { fetch_event_types: ['realm_user'] }));
  assert.equal(reg.realm_users.find((u: { user_id: number }) => u.user_id === member.id).profile_data, pd);
  // Setting the same values again changes nothing.
  assert.equal(await expectConsistent(admin, () => member.patch('/api/v1/users/me/profile_data', { data }), { types }), []);
});

values('invalid values name the field', async () => {
  const set = (id: number, value: unknown) => member.patch('/api/v1/users/me/profile_data', { data: [{ id, value }] } as never);
  assertError(await set(field.Nick!, 'x'.repeat(51)), 'Nick is too long (limit: 50 characters)');
  assertError(await set(field.About!, 'x'.repeat(501)), 'About is too long (limit: 500 characters)');
  assertError(await set(field.Shirt!, 'xl'), "'xl' is not a valid choice for 'Shirt'.");
  assertError(await set(field.Born!, '1990-13-45'), 'Born is not a date');
  assertError(await set(field.Homepage!, 'javascript:alert(1)'), 'Homepage is not a URL');
  assertError(await set(field.Mentor!, [999999]), 'Invalid user ID: 999999');
  assertError(await set(field.Mentor!, 'admin'), 'Mentor is not a list');
  assertError(await set(field.Nick!, 5), 'Nick is not a string');
  assertError(await member.patch('/api/v1/users/me/profile_data', { data: [{ id: field.Nick }] }), 'data[0]["value"] key is missing');
  assertError(await set(999999, 'x'), 'Field id 999999 not found.');
  assertError(await set(field.Badge!, 'gold'), 'You are not allowed to change this field. Contact an administrator to update it.');
  assertError(await member.patch('/api/v1/users/me/profile_data', { data: [{ value: 'x' }] }), 'data[0]["id"] key is missing');
});

values('null and DELETE remove values', async () => {
  await expectConsistent(admin, () => member.patch('/api/v1/users/me/profile_data', { data: [{ id: field.Nick, value: null }] }), { types });
  await expectConsistent(admin, () => member.delete('/api/v1/users/me/profile_data', { data: [field.About, field.Born] }), { types });
  const pd = assertSuccess(await member.get('/api/v1/users/me')).profile_data;
  assert.not.ok(String(field.Nick) in pd);
  assert.not.ok(String(field.About) in pd);
  assert.ok(String(field.Shirt) in pd);
  assertError(await member.delete('/api/v1/users/me/profile_data', { data: [field.Badge] }), 'You are not allowed to change this field. Contact an administrator to update it.');
});

values('administrators set any field of anyone through PATCH /users/{id}', async () => {
  await expectConsistent(member, () => admin.patch(`/api/v1/users/${member.id}`, { profile_data: [{ id: field.Badge, value: 'gold' }] }), { types });
  assert.equal(assertSuccess(await member.get('/api/v1/users/me')).profile_data[field.Badge!], { value: 'gold', rendered_value: '<p>gold</p>' });
  assertError(await member.patch(`/api/v1/users/${guest.id}`, { profile_data: [{ id: field.Nick, value: 'x' }] }), 'Must be an organization administrator', 400, 'UNAUTHORIZED_PRINCIPAL');
});

values('removing an option removes the values that chose it', async () => {
  await expectConsistent(admin, () => admin.patch(`/api/v1/realm/profile_fields/${field.Shirt}`, { field_data: { s: { text: 'Small', order: '1' } } }), { types });
  assert.not.ok(String(field.Shirt) in assertSuccess(await member.get('/api/v1/users/me')).profile_data);
});

values.after(async () => {
  await server.close();
});

fields.run();
values.run();
