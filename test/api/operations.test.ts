// Operations endpoints: the generated OpenAPI document covers the route table; /metrics exposes
// request, queue and rate-limit metrics to loopback clients or bearers of METRICS_TOKEN.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiRoutes, siteRoutes } from '../../src/http/routes.js';
import { assertError, assertSuccess } from '../helpers/assert.js';
import { startTestServer, type TestRealm, type TestServer } from '../helpers/server.js';

let server: TestServer;
let realm: TestRealm;

const doc = suite('GET /api/v1/openapi.json');
doc.before(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_USER_PER_MINUTE: '1000' } });
  realm = await server.createRealm();
});

doc('every route and method of the table, with their parameters', async () => {
  const r = await realm.anonymous('GET', '/api/v1/openapi.json');
  assert.is(r.status, 200);
  const d = JSON.parse(r.text);
  assert.is(d.openapi, '3.1.0');
  for (const [path, methods] of Object.entries(apiRoutes)) {
    for (const method of Object.keys(methods)) assert.ok(d.paths[`/api/v1${path}`]?.[method.toLowerCase()], `${method} ${path}`);
  }
  for (const [path, methods] of Object.entries(siteRoutes)) {
    for (const method of Object.keys(methods)) assert.ok(d.paths[path]?.[method.toLowerCase()], `${method} ${path}`);
  }
  const send = d.paths['/api/v1/messages'].post;
  const form = send.requestBody.content['application/x-www-form-urlencoded'].schema;
  assert.ok(form.required.includes('content'));
  assert.is(form.properties.read_by_sender.type, 'boolean');
  assert.equal(send.security, [{ basicAuth: [] }]);
  const events = d.paths['/api/v1/events'].get.parameters;
  assert.equal(events.map((p: { name: string }) => p.name).sort(), ['dont_block', 'last_event_id', 'queue_id']);
  assert.is(events.find((p: { name: string }) => p.name === 'last_event_id').schema.default, -1);
  const narrow = d.paths['/api/v1/register'].post.requestBody.content['application/x-www-form-urlencoded'].schema.properties.narrow;
  assert.is(narrow.type, 'array');
  assert.is(narrow['x-json-encoded'], true);
  assert.equal(d.paths['/api/v1/server_settings'].get.security, []);
  const edit = d.paths['/api/v1/messages/{message_id}'].patch.parameters;
  assert.equal(edit, [{ name: 'message_id', in: 'path', required: true, schema: { type: 'integer' } }]);
});

const metrics = suite('GET /metrics');
metrics.after(() => server.close());

metrics('request, queue and rate metrics for loopback clients', async () => {
  assertSuccess(await realm.owner.get('/api/v1/users/me'));
  const { queue_id } = assertSuccess(await realm.owner.post('/api/v1/register', { fetch_event_types: [] }));
  const parked = realm.owner.get('/api/v1/events', { queue_id });
  await new Promise((r) => setTimeout(r, 50));
  const r = await realm.anonymous('GET', '/metrics');
  assert.is(r.status, 200);
  assert.match(r.headers['Content-Type'], /^text\/plain/);
  assert.match(r.text, /parley_http_requests_total\{route="\/api\/v1\/users\/me",method="GET",status="200"\} 1/);
  assert.match(r.text, /parley_http_request_duration_seconds_bucket\{le="0.005",route="\/api\/v1\/users\/me",method="GET"\}/);
  assert.match(r.text, /parley_event_queues \d+/);
  assert.match(r.text, /parley_parked_long_polls 1\b/);
  assert.match(r.text, /parley_open_websockets 0/);
  assert.match(r.text, /parley_rate_limited_total 0/);
  assert.match(r.text, /parley_nodejs_eventloop_lag_seconds/);
  assertSuccess(await realm.owner.delete('/api/v1/events', { queue_id }));
  await parked;
});

metrics('request counts and durations add up, and a second scrape counts nothing twice', async () => {
  for (let i = 0; i < 3; i++) assertSuccess(await realm.owner.get('/api/v1/users/me/subscriptions'));
  const labels = 'route="/api/v1/users/me/subscriptions",method="GET"';
  const value = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(series + ' '));
    assert.ok(line, `${series} is reported`);
    return Number(line.slice(series.length + 1));
  };
  for (let scrape = 0; scrape < 2; scrape++) {
    const { text } = await realm.anonymous('GET', '/metrics');
    assert.is(value(text, `parley_http_requests_total{${labels},status="200"}`), 3);
    assert.is(value(text, `parley_http_request_duration_seconds_count{${labels}}`), 3);
    assert.ok(value(text, `parley_http_request_duration_seconds_sum{${labels}}`) > 0);
    const buckets = ['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '10', '60', '+Inf'];
    const cumulative = buckets.map((le) => value(text, `parley_http_request_duration_seconds_bucket{le="${le}",${labels}}`));
    assert.equal(cumulative, [...cumulative].sort((a, b) => a - b), 'buckets are cumulative');
    assert.is(cumulative.at(-1), 3);
  }
});

metrics('a method a client made up counts as "other" (label sets are kept for good)', async () => {
  for (const method of ['BREW', 'WHEN', 'GET']) assert.is((await realm.owner.request(method, '/api/v1/users/me')).status, method === 'GET' ? 200 : 405);
  const r = await realm.anonymous('GET', '/metrics');
  assert.match(r.text, /parley_http_requests_total\{route="\/api\/v1\/users\/me",method="other",status="405"\} 2/);
  assert.not.match(r.text, /method="BREW"/);
});

metrics('other clients are refused; METRICS_TOKEN lets a bearer in', async () => {
  const far = await server.dispatch({ method: 'GET', path: '/metrics', query: '', headers: { host: realm.host }, body: null, remoteAddress: '203.0.113.9' });
  assert.is(far.status, 403);
  const guarded = await startTestServer({ env: { METRICS_TOKEN: 'a-long-scrape-token-123' } });
  try {
    assertError(await guarded.request('GET', '/metrics'), 'Not logged in: API authentication or user session required', 401);
    const ok = await guarded.request('GET', '/metrics', {}, { headers: { authorization: 'Bearer a-long-scrape-token-123' } });
    assert.is(ok.status, 200);
  } finally {
    await guarded.close();
  }
});

doc.run();
metrics.run();
