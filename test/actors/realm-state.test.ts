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

t('a unique-name check sees other active users of the name, in any case, not the one renaming', () => {
  const s = new RealmState({ id: 1 } as RealmRecord, [user(1, true, 'Kim Lee'), user(2, true, 'KIM LEE'), user(3, true, 'Kim Lee'), user(4, false, 'Pat')], []);
  assert.is(s.nameTakenByOther('kim lee', null), true);
  assert.is(s.nameTakenByOther('kim lee', 1), true, 'two others share it');
  assert.is(s.nameTakenByOther('Pat', null), false, 'deactivated');
  assert.is(s.nameTakenByOther('Nobody', null), false);
  s.putUser(user(2, true, 'Kim Two'));
  s.putUser(user(3, false, 'Kim Lee'));
  assert.is(s.nameTakenByOther('Kim Lee', 1), false, 'the only one left is the one asking');
  assert.is(s.nameTakenByOther('Kim Lee', 2), true);
  assert.is(s.activeUserByName('kim lee')?.id, 1, 'three shared it; two left it');
  s.putUser(user(4, true, 'Pat'));
  assert.is(s.nameTakenByOther('pat', null), true, 'reactivated');
});

t('the name index, once made, follows puts without another walk over the users', () => {
  const s = new RealmState({ id: 1 } as RealmRecord, [user(1, true, 'A'), user(2, true, 'B')], []);
  assert.is(s.activeUserByName('a')?.id, 1);
  s.users.values = () => assert.unreachable('walked the users again') as never;
  s.putUser(user(3, true, 'C'));
  s.putUser(user(1, true, 'B'));
  s.putUser(user(2, false, 'B'));
  assert.is(s.activeUserByName('c')?.id, 3);
  assert.is(s.activeUserByName('b')?.id, 1);
  assert.is(s.activeUserByName('a'), null);
  assert.is(s.nameTakenByOther('B', 1), false);
});

t.run();
