// Request rate limits per user and per address: 429 RATE_LIMIT_HIT with Retry-After and
// retry-after, X-RateLimit-* headers on every response (a parked poll's as of its answer), bad
// credentials counted per address.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { basic, startTestServer, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

const clock = new ManualClock(Date.UTC(2026, 3, 1));
let server: TestServer;
let realm: TestRealm;
let ann: TestUser;
let ben: TestUser;

const t = suite('rate limits');
t.before(async () => {
  server = await startTestServer({ clock, env: { RATE_LIMIT_USER_PER_MINUTE: '5', RATE_LIMIT_IP_PER_MINUTE: '3' } });
  realm = await server.createRealm();
  ann = await realm.createUser();
  ben = await realm.createUser();
});
t.after(() => server.close());

t('a user gets its limit, then 429 with Retry-After; the bucket refills over the minute', async () => {
  for (let i = 4; i >= 0; i--) {
    const r = await ann.get('/api/v1/users/me');
    assertSuccess(r);
    assert.is(r.headers['X-RateLimit-Limit'], '5');
    assert.is(r.headers['X-RateLimit-Remaining'], String(i));
    assert.ok(Number(r.headers['X-RateLimit-Reset']) >= Math.floor(clock.now() / 1000));
  }
  const limited = await ann.get('/api/v1/users/me');
  const body = assertError(limited, 'API usage exceeded rate limit', 429, 'RATE_LIMIT_HIT');
  assert.ok(body['retry-after'] > 11 && body['retry-after'] <= 12, String(body['retry-after']));
  assert.is(limited.headers['Retry-After'], '12');
  assert.is(limited.headers['X-RateLimit-Remaining'], '0');
  // Another user is unaffected.
  assertSuccess(await ben.get('/api/v1/users/me'));
  clock.advance(12_000);
  assertSuccess(await ann.get('/api/v1/users/me'));
  assertError(await ann.get('/api/v1/users/me'), 'API usage exceeded rate limit', 429);
  clock.advance(60_000);
});

t('anonymous requests are limited per address, unknown routes included', async () => {
  clock.advance(60_000);
  const ok1 = await realm.anonymous('GET', '/api/v1/server_settings');
  assert.is(ok1.headers['X-RateLimit-Limit'], '3');
  assertError(await realm.anonymous('GET', '/api/v1/nowhere'), 'Endpoint does not exist', 404);
  assertSuccess(await realm.anonymous('GET', '/api/v1/server_settings'));
  assertError(await realm.anonymous('GET', '/api/v1/server_settings'), 'API usage exceeded rate limit', 429, 'RATE_LIMIT_HIT');
  clock.advance(60_000);
});

t('failed authentication counts against the address', async () => {
  clock.advance(60_000);
  const wrong = { auth: basic(ann.email, 'x'.repeat(32)) };
  for (let i = 0; i < 3; i++) assertError(await ann.get('/api/v1/users/me', {}, wrong), 'Invalid API key', 401);
  assertError(await ann.get('/api/v1/users/me', {}, wrong), 'API usage exceeded rate limit', 429);
  assertError(await realm.anonymous('GET', '/api/v1/server_settings'), 'API usage exceeded rate limit', 429);
  // A valid key still works: users are limited by their own bucket.
  assertSuccess(await ben.get('/api/v1/users/me'));
  clock.advance(60_000);
});

t("a parked long-poll's answer tells the bucket as it is when the answer goes", async () => {
  clock.advance(60_000);
  const { queue_id } = assertSuccess(await ann.post('/api/v1/register', { event_types: JSON.stringify(['message']) }));
  const parked = ann.get('/api/v1/events', { queue_id, last_event_id: -1 }); // Ann's second request: 3 tokens left
  await new Promise((r) => setTimeout(r, 50));
  // 24 seconds refill two of the five tokens a minute.
  clock.advance(24_000);
  assertSuccess(await ben.post('/api/v1/messages', { type: 'direct', to: JSON.stringify([ann.id]), content: 'hi' }));
  const answer = await parked;
  assert.equal(assertSuccess(answer).events.map((e: { type: string }) => e.type), ['message']);
  assert.is(answer.headers['X-RateLimit-Remaining'], '5');
  assert.is(answer.headers['X-RateLimit-Reset'], String(Math.ceil(clock.now() / 1000)));
  clock.advance(60_000);
});

t.run();
