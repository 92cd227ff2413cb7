// The conventions that hold for every endpoint: parameter transport and encoding, the success
// and error envelopes (also of answers given later, as parked polls are), and the
// transport-level statuses (404, 405, 500).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { Later, userEndpoint } from '../../src/http/endpoint.js';
import { errors } from '../../src/domain/errors.js';
import { p } from '../../src/http/params.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { startTestServer, TestExchange, type TestRealm, type TestServer } from '../helpers/server.js';

const echo = userEndpoint(
  z.object({
    text: p.string(),
    n: p.int().optional(),
    flag: p.bool().default('false'),
    ids: p.intList().default('[]'),
    opts: p.json(z.record(z.unknown())).optional(),
  }),
  async (_ctx, params) => ({ echoed: params }),
);
const boom = userEndpoint(z.object({}), async () => {
  throw new Error('secret internal detail');
});

/** Answers through a Later, after a timer, as a parked poll does: data, an ApiError, twice, or a throw. */
const later = userEndpoint(z.object({ how: p.string() }), async (_ctx, params) => {
  if (params.how === 'throws') {
    return new Later(() => {
      throw errors.badRequest('refused at once');
    });
  }
  return new Later((to) =>
    setTimeout(() => {
      if (params.how === 'error') to.answer(errors.badRequest('refused later'));
      else to.answer({ answered: params.how });
      if (params.how === 'twice') to.answer({ answered: 'again' });
    }, 5),
  );
});

let server: TestServer;
let realm: TestRealm;

const t = suite('conventions', {});
t.before(async () => {
  server = await startTestServer({
    extraApiRoutes: { '/test/echo': { GET: echo, POST: echo, PATCH: echo, DELETE: echo }, '/test/boom': { GET: boom }, '/test/later': { GET: later } },
  });
  realm = await server.createRealm();
});
t.after(() => server.close());

const all = { text: 'héllo wörld & more', n: 7, flag: true, ids: [1, 2], opts: { a: [1] } };
const expected = { text: 'héllo wörld & more', n: 7, flag: true, ids: [1, 2], opts: { a: [1] } };

t('GET takes parameters in the query string', async () => {
  assert.equal(assertSuccess(await realm.owner.get('/api/v1/test/echo', all)).echoed, expected);
});

for (const method of ['POST', 'PATCH', 'DELETE'] as const) {
  t(`${method} takes form-encoded body parameters`, async () => {
    assert.equal(assertSuccess(await realm.owner.request(method, '/api/v1/test/echo', all)).echoed, expected);
  });
  t(`${method} also takes parameters in the query string`, async () => {
    assert.equal(assertSuccess(await realm.owner.request(method, '/api/v1/test/echo', all, { inQuery: true })).echoed, expected);
  });
}

t('multipart/form-data bodies', async () => {
  const b = 'bOuNdArY';
  const body =
    `--${b}\r\nContent-Disposition: form-data; name="text"\r\n\r\nfrom multipart\r\n` +
    `--${b}\r\nContent-Disposition: form-data; name="ids"\r\n\r\n[3]\r\n--${b}--\r\n`;
  const res = await realm.owner.post('/api/v1/test/echo', {}, { body, contentType: `multipart/form-data; boundary=${b}` });
  assert.equal(assertSuccess(res).echoed, { text: 'from multipart', flag: false, ids: [3] });
});

t('success envelope and ignored_parameters_unsupported', async () => {
  const res = await realm.owner.post('/api/v1/test/echo', { text: 'x', bogus: 1, other: 'y' });
  const body = assertSuccess(res);
  assert.is(body.result, 'success');
  assert.equal(body.ignored_parameters_unsupported, ['bogus', 'other']);
  assert.is(res.headers['Content-Type'], 'application/json');
  const plain = assertSuccess(await realm.owner.post('/api/v1/test/echo', { text: 'x' }));
  assert.not.ok('ignored_parameters_unsupported' in plain);
});

t('validation errors', async () => {
  assertError(await realm.owner.post('/api/v1/test/echo', {}), "Missing 'text' argument", 400, 'REQUEST_VARIABLE_MISSING');
  assertError(await realm.owner.post('/api/v1/test/echo', { text: 'x', n: 'seven' }), 'n is not an integer', 400, 'BAD_REQUEST');
  assertError(await realm.owner.post('/api/v1/test/echo', { text: 'x', flag: 'maybe' }), 'flag is not a boolean');
  assertError(await realm.owner.post('/api/v1/test/echo', { text: 'x', ids: '[1' }), 'Argument "ids" is not valid JSON.');
  assertError(await realm.owner.post('/api/v1/test/echo', { text: 'x', ids: '["a"]' }), 'ids[0] is not an integer');
});

t('malformed bodies are 4xx', async () => {
  const bad = await realm.owner.post('/api/v1/test/echo', {}, { body: Buffer.from([0x74, 0x65, 0x78, 0x74, 0x3d, 0xff]) });
  assertError(bad, 'Request body is not valid UTF-8');
  const trunc = await realm.owner.post('/api/v1/test/echo', {}, { body: '--zz\r\nContent-Disposition: form-data; name="text"\r\n\r\nabc', contentType: 'multipart/form-data; boundary=zz' });
  assertError(trunc, 'Malformed request body: truncated multipart body');
  const json = await realm.owner.post('/api/v1/test/echo', {}, { body: '{"text":"x"}', contentType: 'application/json' });
  assertError(json, 'Unsupported Content-Type: application/json', 415, 'UNSUPPORTED_MEDIA_TYPE');
});

t('unknown route is 404, wrong method is 405 with Allow', async () => {
  assertError(await realm.owner.get('/api/v1/no/such/thing'), 'Endpoint does not exist', 404, 'NOT_FOUND');
  assertError(await realm.owner.get('/nowhere'), 'Endpoint does not exist', 404, 'NOT_FOUND');
  const res = await realm.owner.request('PUT', '/api/v1/test/echo', { text: 'x' });
  assertError(res, 'Method Not Allowed', 405, 'METHOD_NOT_ALLOWED');
  assert.is(res.headers.Allow, 'GET, POST, PATCH, DELETE');
});

t('an unexpected failure is a 500 with a request id and no internals', async () => {
  const res = await realm.owner.get('/api/v1/test/boom');
  const body = assertError(res, 'Internal server error', 500, 'INTERNAL_SERVER_ERROR');
  assert.match(body.request_id, /^[0-9a-f-]{36}$/);
  assert.not.match(res.text, /secret internal detail|at \w+ \(/);
  // and the server keeps serving
  assertSuccess(await realm.owner.get('/api/v1/test/echo', { text: 'still here' }));
});

t('an answer given later through a callback gets the same envelopes, once', async () => {
  assert.is(assertSuccess(await realm.owner.get('/api/v1/test/later', { how: 'data' })).answered, 'data');
  assert.is(assertSuccess(await realm.owner.get('/api/v1/test/later', { how: 'twice' })).answered, 'twice');
  assertError(await realm.owner.get('/api/v1/test/later', { how: 'error' }), 'refused later', 400, 'BAD_REQUEST');
  assertError(await realm.owner.get('/api/v1/test/later', { how: 'throws' }), 'refused at once', 400, 'BAD_REQUEST');
  // The second answer goes nowhere: the dispatcher replies once.
  const replies: number[] = [];
  server.dispatcher(
    { method: 'GET', path: '/api/v1/test/later', query: 'how=twice', headers: { host: realm.host, authorization: realm.owner.auth }, body: null, remoteAddress: '127.0.0.1' },
    new TestExchange((res) => replies.push(res.status)),
  );
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(replies, [200]);
  // ...and is not counted: three answered calls so far (data, twice, twice), three counted.
  const scraped = (await realm.anonymous('GET', '/metrics')).text;
  assert.match(scraped, /parley_http_requests_total\{route="\/api\/v1\/test\/later",method="GET",status="200"\} 3\n/);
  assertSuccess(await realm.owner.get('/api/v1/test/echo', { text: 'still here' }));
});

t('unknown organization', async () => {
  // With more than one organization the Host must match one of them.
  await server.createRealm();
  assertError(await server.request('GET', '/api/v1/users/me', {}, { host: 'nobody.test' }), 'Organization not registered', 404);
});

t.run();
