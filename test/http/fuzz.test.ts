// Fuzzing every operation of the route table, read from GET /api/v1/openapi.json: at least
// FUZZ_RUNS (default 1,000) generated malformed requests each, through dispatch(), as a real
// member and owner (and anonymous and broken credentials) of an organization full of channels,
// messages and other objects whose ids the requests aim at. Every answer is a 2xx, or a 4xx in
// the API's error shape (the HTML sign-up page and redirects excepted, explicitly); never a 5xx.
// The server keeps serving: a health check after every operation's batch.
//   FUZZ_SEED=n reproduces a run (the seed is printed); FUZZ_ONLY=regexp fuzzes the matching operations.
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Hangup } from '../../src/hangup.js';
import type { ApiRequest, ApiResponse } from '../../src/http/dispatch.js';
import { siteRoutes } from '../../src/http/routes.js';
import { assertSuccess } from '../helpers/assert.js';
import { buildRequest, caseArb, operationsOf, type FuzzOp, type RequestTargets } from '../helpers/fuzz-requests.js';
import { Pools } from '../helpers/fuzz-values.js';
import { createChannel, sendDirect, sendToChannel } from '../helpers/messaging.js';
import { multipart, PNG } from '../helpers/people.js';
import { oneOfEachRole, type OneOfEachRole } from '../helpers/roles.js';
import { basic, startTestServer, type Params, type TestRealm, type TestServer, type TestUser } from '../helpers/server.js';

const RUNS = Math.max(1000, Number(process.env.FUZZ_RUNS ?? 1000));
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ONLY = process.env.FUZZ_ONLY;

/**
 * Operations whose successful (or some failing) answers are not the JSON envelope. Every site
 * route must be listed: a new raw route has to say how its answers look.
 */
const RAW: Record<string, 'json' | 'text' | 'file' | 'redirect' | 'html' | 'page'> = {
  'GET /api/v1/openapi.json': 'json',
  'GET /health': 'json',
  'GET /metrics': 'text',
  'GET /avatar/{user_id}': 'redirect',
  'GET /avatar/{user_id}/medium': 'redirect',
  'GET /user_uploads/{realm_id}/{bucket}/{token}/{filename}': 'file',
  'GET /user_uploads/temporary/{token}/{filename}': 'file',
  'GET /user_avatars/{realm_id}/{file_name}': 'file',
  'GET /user_avatars/{realm_id}/emoji/images/{file_name}': 'file',
  'GET /join/{key}/': 'html',
  'POST /join/{key}/': 'html',
  // A browser form: an HTML page, or a redirect once it is done.
  'GET /login': 'html',
  'POST /login': 'page',
  'POST /logout': 'page',
};

let server: TestServer;
let realm: TestRealm;
let cast: OneOfEachRole;
let targets: RequestTargets;
let ops: FuzzOp[];
const pools = new Pools();
const queues = new Set<string>();
let cases = 0;

/** Call the API as `u` for the fixture; the answer's ids and names go into the pools. */
async function seed(u: TestUser, method: string, path: string, params: Params = {}): Promise<Record<string, unknown>> {
  const r = assertSuccess(await u.request(method, path, params));
  pools.add(r);
  return r;
}

async function buildOrganization(): Promise<void> {
  realm = await server.createRealm();
  cast = await oneOfEachRole(realm, { botOwner: 'member' });
  const other = await server.createRealm();
  const stranger = await other.createUser();
  const { owner, member } = cast;
  const general = await createChannel(owner, 'general', { others: [member] });
  await createChannel(owner, 'secret', { invite_only: true });
  await createChannel(member, 'members', { others: [owner] });
  const archived = await createChannel(owner, 'old');
  await seed(owner, 'DELETE', `/api/v1/streams/${archived}`);
  const foreign = await createChannel(other.owner, 'elsewhere');
  for (const [u, c] of [[owner, 'general'], [member, 'general'], [owner, 'secret'], [member, 'members']] as const) {
    pools.add({ message_id: await sendToChannel(u, c, `topic ${c}`, `**hello** from ${u.email} @**Mel Member**`) });
  }
  pools.add({ message_id: await sendDirect(owner, [member], 'a direct message') });
  pools.add({ message_id: await sendDirect(cast.admin, [cast.moderator], 'a direct message between others') });
  pools.add({ message_id: await sendToChannel(other.owner, foreign, 'far', 'another organization') });
  pools.add({ user_ids: [...Object.values(cast).map((u: TestUser) => u.id), stranger.id], stream_ids: [general, archived, foreign] });
  for (const u of [owner, member]) pools.add({ email: u.email, topic: 'topic general', name: 'general' });

  await seed(owner, 'POST', `/api/v1/messages/${[...pools.ints][0]}/reactions`, { emoji_name: 'smile' }).catch(() => undefined);
  await seed(owner, 'POST', '/api/v1/user_groups/create', { name: 'crew', description: 'the crew', members: [member.id] });
  await seed(member, 'POST', '/api/v1/saved_snippets', { title: 'snip', content: 'text' });
  await seed(member, 'POST', '/api/v1/navigation_views', { fragment: 'narrow/channel/1-general', is_pinned: true, name: 'General' });
  await seed(owner, 'POST', '/api/v1/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}' });
  await seed(owner, 'POST', '/api/v1/realm/profile_fields', { name: 'Phone', field_type: 1 });
  await seed(owner, 'POST', '/api/v1/channel_folders/create', { name: 'Folder', description: 'a folder' });
  await seed(owner, 'POST', '/api/v1/invites/multiuse', { stream_ids: [general] });
  await seed(member, 'POST', '/api/v1/users/me/alert_words', { alert_words: ['alert'] });
  await seed(owner, 'POST', '/api/v1/realm/domains', { domain: 'example.com', allow_subdomains: false });
  await seed(member, 'POST', '/api/v1/users/me/status', { status_text: 'busy' });
  const upload = multipart({}, { file: { filename: 'pic.png', data: PNG } });
  const up = assertSuccess(await member.post('/api/v1/user_uploads', {}, { body: upload.body, contentType: upload.contentType }));
  pools.add({ url: up.url, name: String(up.url).split('/').pop() });
  assertSuccess(await owner.post('/api/v1/realm/emoji/party', {}, { body: upload.body, contentType: upload.contentType }));
  pools.add({ name: 'party' });
  await sendToChannel(member, 'general', 'files', `[pic](${up.url})`);
  for (const u of [owner, member]) await seed(u, 'POST', '/api/v1/register', { fetch_event_types: ['message'] });
  const invites = await seed(owner, 'GET', '/api/v1/invites');
  for (const i of invites.invites as Array<{ link_url: string }>) pools.add({ name: i.link_url.split('/').filter(Boolean).pop() });

  targets = {
    hosts: { realm: realm.host, other: other.host, unknown: 'nowhere.invalid' },
    auth: { member: member.auth, owner: owner.auth },
    badAuth: [
      'Basic !!!',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      basic(member.email, 'not-the-key'),
      stranger.auth,
      'Bearer abc',
      `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0xc3, 0x28]).toString('base64')}`,
      `Basic ${'A'.repeat(10_000)}`,
      `basic ${Buffer.from(`${member.email}:${member.apiKey}`).toString('base64')}`,
      'Basic',
      `Basic ${Buffer.from(`${cast.bot.email}:${cast.bot.apiKey}`).toString('base64')}`,
    ],
  };
}

/** Put the two callers back as they were when a case deactivated or demoted them. */
async function restoreCallers(): Promise<void> {
  const state = realm.handle.state;
  for (const [u, role] of [[cast.owner, 100], [cast.member, 400]] as const) {
    const now = state.user(u.id)!;
    if (!now.is_active) await realm.handle.ask('user.setActive', { userId: u.id, active: true, actorId: null });
    if (now.role !== role) await realm.handle.ask('user.setRole', { userId: u.id, role, actorId: null });
  }
}

/** dispatch() with a client that hangs up after 50 ms (a parked GET /events then answers). */
async function send(req: ApiRequest): Promise<ApiResponse> {
  const hangup = new Hangup();
  const leaving = setTimeout(() => hangup.fire(), 50);
  let hung: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      server.dispatch(req, hangup),
      new Promise<never>((_, reject) => (hung = setTimeout(() => reject(new Error('no answer within 30 s')), 30_000))),
    ]);
  } finally {
    clearTimeout(leaving);
    clearTimeout(hung);
  }
}

/** Each operation's own seed, so FUZZ_ONLY replays the same cases for it. */
const seedOf = (key: string) => [...key].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, SEED);

const header = (res: ApiResponse, name: string) => Object.entries(res.headers).find(([k]) => k.toLowerCase() === name)?.[1];

/** What is wrong with an answer, or null. */
function problemWith(kind: (typeof RAW)[string] | undefined, res: ApiResponse): string | null {
  const json = (): Record<string, unknown> | null => {
    try {
      return JSON.parse(typeof res.body === 'string' ? res.body : res.body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return null;
    }
  };
  if (res.status >= 500) return `a ${res.status}`;
  if (res.status >= 200 && res.status < 300) {
    if (kind === undefined && json()?.result !== 'success') return 'a 2xx without the success envelope';
    if ((kind === 'html' || kind === 'page') && !/^text\/html/.test(header(res, 'content-type') ?? '')) return 'a page that is not HTML';
    return null;
  }
  if (res.status >= 300 && res.status < 400) return (kind === 'redirect' || kind === 'page') && header(res, 'location') ? null : `an unexpected ${res.status}`;
  if (res.status < 400) return `status ${res.status}`;
  if ((kind === 'html' || kind === 'page') && /^text\/html/.test(header(res, 'content-type') ?? '')) return null;
  const error = json();
  if (error === null) return 'an error that is not JSON';
  if (error.result !== 'error' || typeof error.code !== 'string' || typeof error.msg !== 'string') return 'an error without {result, code, msg}';
  return null;
}

const t = suite('fuzzing every route');

t.before(async () => {
  process.stdout.write(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} reproduces this run), ${RUNS} cases per operation\n`);
  server = await startTestServer();
  await buildOrganization();
  const doc = await cast.member.get('/api/v1/openapi.json');
  assert.is(doc.status, 200);
  ops = operationsOf(doc.json).filter((op) => !ONLY || new RegExp(ONLY).test(`${op.method} ${op.path}`));
});

t.after(async () => {
  process.stdout.write(`${cases} fuzz cases on ${ops.length} operations\n`);
  await server.close();
});

t('every site route says how its answers look', () => {
  for (const [path, methods] of Object.entries(siteRoutes)) {
    for (const method of Object.keys(methods)) assert.ok(RAW[`${method} ${path}`], `${method} ${path} is classified`);
  }
  assert.ok(ops.length > 100 || ONLY !== undefined, `${ops.length} operations in the document`);
});

t('every operation: 1,000 malformed requests, no 5xx, every error in shape, the server keeps serving', async () => {
  const failures: string[] = [];
  for (const op of ops) {
    const key = `${op.method} ${op.path}`;
    const kind = RAW[key];
    const started = Date.now();
    let slowest = { ms: -1, what: '' };
    const result = await fc.check(
      fc.asyncProperty(caseArb(op, pools, targets.badAuth.length), async (c) => {
        cases++;
        const sent = Date.now();
        const res = await send(buildRequest(op, c, targets));
        if (Date.now() - sent > slowest.ms) slowest = { ms: Date.now() - sent, what: `${res.status} ${fc.stringify(c)}` };
        const problem = problemWith(kind, res);
        if (problem) {
          const body = typeof res.body === 'string' ? res.body : `${res.body.length} bytes`;
          throw new Error(`${problem}: ${res.status} ${body.slice(0, 300)}`);
        }
        if (res.status === 200 && kind === undefined) {
          const json = JSON.parse(String(res.body)) as Record<string, unknown>;
          pools.add(json);
          if (typeof json.queue_id === 'string') queues.add(json.queue_id);
        }
        await restoreCallers();
      }),
      { seed: seedOf(key), numRuns: RUNS, endOnFailure: true },
    );
    if (result.failed) {
      failures.push(`${key}: ${String(result.errorInstance)}\n${fc.defaultReportMessage(result)?.slice(0, 3000)}`);
      if (process.env.FUZZ_VERBOSE) process.stdout.write(`FAILED ${failures.at(-1)!.slice(0, 1500)}\n`);
    }
    // The server keeps serving, and the queues the cases opened are closed.
    for (const q of queues) await cast.owner.delete('/api/v1/events', { queue_id: q }).then(() => cast.member.delete('/api/v1/events', { queue_id: q }));
    queues.clear();
    const health = await send({ method: 'GET', path: '/health', query: '', headers: { host: realm.host }, body: null, remoteAddress: '127.0.0.1' });
    assert.is(health.status, 200, `healthy after ${key}`);
    assertSuccess(await cast.member.get('/api/v1/users/me'));
    assertSuccess(await cast.owner.get('/api/v1/users/me'));
    if (process.env.FUZZ_VERBOSE) process.stdout.write(`${key}: ${Date.now() - started} ms; slowest ${slowest.ms} ms: ${slowest.what}\n`);
  }
  assert.ok(failures.length === 0, `fuzz seed ${SEED}, ${failures.length} operations failed:\n${failures.join('\n\n')}`);
});

t.run();
