// The realm's users in memory (state.ts): the count of active users and the index of their
// names follow every put.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RealmState, type RealmRecord, type UserRecord } from '../../src/actors/realm/state.js';

const t = suite('realm state');

const user = (id: number, active: boolean, fullName = `User ${id}`) =>
  ({ id, email: `u${id}@x.test`, delivery_email: `u${id}@x.test`, is_active: active, full_name: fullName, role: 400 }) as UserRecord;

t('active users are counted as they are put: added, deactivated, put again, reactivated', () => {
  const s = new RealmState({ id: 1 } as RealmRecord, [user(1, true), user(2, true), user(3, false)], []);
  assert.is(s.activeUsers, 2);
  s.putUser(user(2, false));
  assert.is(s.activeUsers, 1);
  s.putUser(user(1, true));
  assert.is(s.activeUsers, 1, 'the same active user put again is not counted twice');
  s.putUser(user(3, true));
  s.putUser(user(4, true));
  assert.is(s.activeUsers, 3);
  assert.is([...s.users.values()].filter((u) => u.is_active).length, s.activeUsers);
});

t('a mention by name finds the active user of that name, in any case, and follows every change', () => {
  const people = [user(1, true, 'Ada Lovelace'), user(2, true, 'Sam Twin'), user(3, true, 'sam twin'), user(4, false, 'Old Name')];
  const s = new RealmState({ id: 1 } as RealmRecord, people, []);
  assert.is(s.activeUserByName('ADA lovelace')?.id, 1);
  assert.is(s.activeUserByName('Sam Twin'), null, 'two active users share it: neither');
  assert.is(s.activeUserByName('Old Name'), null, 'deactivated');
  assert.is(s.activeUserByName('Nobody'), null);
  s.putUser(user(3, true, 'Sam Other'));
  assert.is(s.activeUserByName('sam twin')?.id, 2, "renamed: the name is one user's again");
  assert.is(s.activeUserByName('Sam Other')?.id, 3);
  s.putUser(user(1, false, 'Ada Lovelace'));
  assert.is(s.activeUserByName('Ada Lovelace'), null, 'deactivated since');
  s.putUser(user(4, true, 'Old Name'));
  s.putUser(user(5, true, 'New Person'));
  assert.is(s.activeUserByName('old name')?.id, 4, 'reactivated');
  assert.is(s.activeUserByName('New Person')?.id, 5, 'added');
  const promoted = { ...user(5, true, 'New Person'), role: 200 } as UserRecord;
  s.putUser(promoted);
  assert.is(s.activeUserByName('New Person'), promoted, 'the record as it is now');
});

t.run();
