// The realm's users in memory (state.ts): the count of active users follows every put.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RealmState, type RealmRecord, type UserRecord } from '../../src/actors/realm/state.js';

const t = suite('realm state');

const user = (id: number, active: boolean) => ({ id, email: `u${id}@x.test`, delivery_email: `u${id}@x.test`, is_active: active }) as UserRecord;

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

t.run();
