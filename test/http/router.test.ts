import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { serverEndpoint } from '../../src/http/endpoint.js';
import { Router } from '../../src/http/router.js';

const e = serverEndpoint(z.object({}), async () => ({}));
const router = new Router({
  '/users/{user_id}': { GET: e },
  '/users/me': { GET: e, PATCH: e },
  '/users/me/{stream_id}/topics': { GET: e },
  '/users/me/subscriptions/{stream_id}': { PATCH: e },
  '/users/{user_id}/status': { GET: e },
});

const t = suite('router');

t('literal segments win over parameters', () => {
  assert.is(router.match('/users/me')!.pattern, '/users/me');
  assert.is(router.match('/users/12')!.pattern, '/users/{user_id}');
  assert.equal(router.match('/users/12')!.pathParams, { user_id: '12' });
  assert.is(router.match('/users/me/subscriptions/5')!.pattern, '/users/me/subscriptions/{stream_id}');
  assert.equal(router.match('/users/me/7/topics')!.pathParams, { stream_id: '7' });
});

t('path parameters are percent-decoded', () => {
  assert.equal(router.match('/users/a%40b.com')!.pathParams, { user_id: 'a@b.com' });
});

t('a route without parameters is found by its path, also when percent-encoded', () => {
  const exact = router.match('/users/me')!;
  assert.equal(exact.pathParams, {});
  assert.ok(Object.isFrozen(exact.pathParams), 'the shared empty parameters cannot be changed');
  assert.is(router.match('/users/m%65')!.pattern, '/users/me');
});

t("a route's name carries the table's prefix", () => {
  const prefixed = new Router({ '/users/me': { GET: e }, '/users/{user_id}': { GET: e } }, '/api/v1');
  assert.is(prefixed.match('/users/me')!.route, '/api/v1/users/me');
  assert.is(prefixed.match('/users/12')!.route, '/api/v1/users/{user_id}');
  assert.is(router.match('/users/12')!.route, '/users/{user_id}');
});

t('no match', () => {
  assert.is(router.match('/users'), null);
  assert.is(router.match('/users/me/extra/deep/path'), null);
  assert.is(router.match('/users//status'), null);
});

t('malformed escapes are a 400', () => {
  assert.throws(() => router.match('/users/%E0%A4%A'), (err: { status?: number }) => err.status === 400);
});

t.run();
